/* Checked launches (krt_context_desc.checks = KRT_CHECK_BOUNDS, KRT_CHECK=bounds): an access outside every
 * allocation of the context is not made and the wait returns KRT_ERROR_OUT_OF_BOUNDS naming the kernel, the
 * work-item and the nearest argument; in-bounds kernels give the same results checked or not; program-scope
 * variables and __constant data are never refused; unchecked contexts are not instrumented. On ze_pocl (the CPU
 * runs kernels in this process, so an unchecked stray write lands in its memory), and on the host device through
 * checked libraries (the host_ tests). */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(checks, .timeout = KT_TEST_TIMEOUT);

static krt_context *checked(void)
{
    return kt_context(&(krt_context_desc){ .checks = KRT_CHECK_BOUNDS });
}

static void assert_message_has(const char *what)
{
    const char *m = krt_last_error_message();
    cr_assert(strstr(m, what) != NULL, "the message does not name %s: %s", what, m);
}

Test(checks, off_by_one_write_is_refused_and_named)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "off_by_one");
    enum { N = 64 };
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    uint32_t n = N;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(N + 1, args, 2);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel off_by_one");
    assert_message_has("work-item (64, 0, 0)");
    assert_message_has("4-byte store");
    assert_message_has("argument 0 (out)");
    assert_message_has("0 bytes past its end (at offset 256)");
    /* Every in-bounds item ran. */
    int host[N];
    kt_copy_sync(ctx, host, out, sizeof host);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], i + 1, "out[%d] is %d", i, host[i]);
    /* The record is reset: the next wait succeeds, and the context works on. */
    KT_OK(krt_context_synchronize(ctx));
    kt_assert_usable(ctx);
    n = N - 1;
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A stray write into the process's own memory (the CPU device runs kernels in-process): made without checks, not
 * made with them. The same test shows that an unchecked context's kernels are not instrumented. */
static int victim[4];

/* One work-item of krt_checks' poke: base[index] = value. */
static krt_result poke_at(krt_kernel *poke, int *base, int64_t index, int value)
{
    krt_arg args[] = { KRT_ARG(base), KRT_ARG(index), KRT_ARG(value) };
    krt_launch_desc d = kt_desc1(1, args, 3);
    return krt_launch_sync(poke, &d);
}

static krt_result poke_victim(krt_context *ctx)
{
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "poke");
    int *base = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    int64_t index = ((intptr_t)&victim[1] - (intptr_t)base) / (int64_t)sizeof(int);
    cr_assert_eq((intptr_t)base + index * (int64_t)sizeof(int), (intptr_t)&victim[1]);
    krt_result r = poke_at(k, base, index, 1234);
    KT_OK(krt_free(ctx, base));
    krt_module_destroy(m);
    return r;
}

Test(checks, stray_write_is_not_made)
{
    krt_context *ctx = checked();
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    if (!info.device_memory_host_accessible)
        cr_skip_test("the device does not run kernels in this process");
    memset(victim, 0, sizeof victim);
    KT_EXPECT(poke_victim(ctx), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel poke");
    assert_message_has("argument 0 (base)");
    cr_assert_eq(victim[1], 0, "the refused store was made");
    krt_context_destroy(ctx);
}

/* An access through one argument that lands in another allocation of the context is made, as the search of every
 * allocation allows it: the fast test against the argument's own allocation fails, and the full search decides
 * (a load reads the other allocation, a store writes it). */
/* An access through an argument that leaves the argument's allocation is refused, also where it lands in another
 * allocation of the context: what it would read there depends on where the allocator put the arrays. */
Test(checks, reach_into_another_allocation_is_refused)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    int *a = kt_alloc(ctx, 64, KRT_MEMORY_SHARED), *b = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    int *lo = a < b ? a : b, *hi = a < b ? b : a;
    int *out = kt_alloc(ctx, sizeof(int), KRT_MEMORY_SHARED);
    for (int i = 0; i < 16; i++) {
        hi[i] = 100 + i;
        lo[i] = 0;
    }
    out[0] = -1;
    /* A load: in = lo, off reaches hi[3]. */
    uint32_t off = (uint32_t)(hi - lo) + 3;
    cr_assert_eq((intptr_t)(lo + off), (intptr_t)&hi[3]);
    krt_arg rargs[] = { KRT_ARG(lo), KRT_ARG(out), KRT_ARG(off) };
    krt_launch_desc rd = kt_desc1(1, rargs, 3);
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "read_past"), &rd), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel read_past, work-item (0, 0, 0): a 4-byte load");
    cr_assert_eq(out[0], 1, "the refused load through one argument into another allocation gave %d - 1", out[0]);
    /* A store: base = hi, index reaches lo[5] (below the argument's allocation). */
    int64_t index = (int64_t)(lo - hi) + 5;
    int value = 77;
    krt_arg pargs[] = { KRT_ARG(hi), KRT_ARG(index), KRT_ARG(value) };
    krt_launch_desc pd = kt_desc1(1, pargs, 3);
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "poke"), &pd), KRT_ERROR_OUT_OF_BOUNDS);
    cr_assert_eq(lo[5], 0, "the store through one argument into another allocation was made");
    /* The context goes on: an access inside the argument's allocation. */
    index = 2;
    KT_OK(krt_launch_sync(kt_kernel(m, "poke"), &pd));
    cr_assert_eq(hi[2], 77);
    KT_OK(krt_free(ctx, a));
    KT_OK(krt_free(ctx, b));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(checks, unchecked_context_is_not_instrumented)
{
    krt_context *ctx = kt_context(&(krt_context_desc){ .checks = KRT_CHECK_NONE });
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    if (!info.device_memory_host_accessible || info.type == KRT_DEVICE_TYPE_HOST)
        cr_skip_test("the device does not run kernels in this process");
    memset(victim, 0, sizeof victim);
    KT_OK(poke_victim(ctx));
    cr_assert_eq(victim[1], 1234, "an unchecked kernel's store into host memory was not made");
    krt_context_destroy(ctx);
}

Test(checks, refused_loads_give_zero)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "read_past");
    enum { N = 256, OFF = 200 };
    int *in = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = 10 * i;
    kt_copy_sync(ctx, in, host, sizeof host);
    uint32_t off = OFF;
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(off) };
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel read_past");
    assert_message_has("4-byte load");
    assert_message_has("is out of bounds"); /* the nearest argument may be out, where the allocator put it next */
    assert_message_has("more accesses were refused too");
    kt_copy_sync(ctx, host, out, sizeof host);
    for (int i = 0; i < N; i++) {
        int want = i + OFF < N ? 10 * (i + OFF) + 1 : 1;
        cr_assert_eq(host[i], want, "out[%d] is %d, expected %d", i, host[i], want);
    }
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* bump's atomics: 200 increments of the last element made, then one element past the end refused as an atomic. */
static void atomics_are_checked(krt_context *ctx, krt_module *m)
{
    enum { N = 16 };
    int *c = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    KT_OK(krt_memfill(ctx, NULL, c, &(int){ 0 }, sizeof(int), N * sizeof(int)));
    krt_kernel *bump = kt_kernel(m, "bump");
    uint32_t idx = N - 1;
    krt_arg args[] = { KRT_ARG(c), KRT_ARG(idx) };
    krt_launch_desc d = kt_desc1(100, args, 2);
    KT_OK(krt_launch_sync(bump, &d));
    int host[N];
    kt_copy_sync(ctx, host, c, sizeof host);
    cr_assert_eq(host[N - 1], 200);
    idx = N;
    KT_EXPECT(krt_launch_sync(bump, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("4-byte atomic");
    assert_message_has("0 bytes past its end");
    KT_OK(krt_free(ctx, c));
}

Test(checks, atomics_and_vectors_are_checked)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    atomics_are_checked(ctx, m);

    krt_module *vm = kt_module(ctx, "krt_checks_vec");
    krt_kernel *vec = kt_kernel(vm, "vec4");
    float *in = kt_alloc(ctx, 64 * sizeof(float), KRT_MEMORY_DEVICE);
    float *out = kt_alloc(ctx, 64 * sizeof(float), KRT_MEMORY_DEVICE);
    float fin[64], fout[64];
    for (int i = 0; i < 64; i++)
        fin[i] = (float)i;
    kt_copy_sync(ctx, in, fin, sizeof fin);
    uint32_t off = 0;
    krt_arg vargs[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(off) };
    krt_launch_desc vd = kt_desc1(16, vargs, 3);
    KT_OK(krt_launch_sync(vec, &vd));
    kt_copy_sync(ctx, fout, out, sizeof fout);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(fout[i], 2.0f * (float)i);
    off = 1; /* the last work-item's vload4 reads elements 64..67 */
    KT_EXPECT(krt_launch_sync(vec, &vd), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel vec4");
    assert_message_has("argument 0 (in)");
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(vm);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The globals kernel: program-scope variables and __constant tables read and written, nothing refused. */
static void globals_are_reached(krt_context *ctx, krt_module *m)
{
    krt_kernel *k = kt_kernel(m, "globals");
    enum { N = 100 };
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    int *lut = kt_alloc(ctx, 4 * sizeof(int), KRT_MEMORY_DEVICE);
    int l[4] = { 1, 2, 3, 4 };
    kt_copy_sync(ctx, lut, l, sizeof l);
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(lut) };
    krt_launch_desc d = kt_desc1(N, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    int host[N];
    kt_copy_sync(ctx, host, out, sizeof host);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], 10 * (i % 4 + 1) + i % 4 + 1, "out[%d] is %d", i, host[i]);
    KT_OK(krt_free(ctx, out));
    KT_OK(krt_free(ctx, lut));
}

Test(checks, globals_and_constants_are_not_refused)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    globals_are_reached(ctx, m);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The same in-bounds launches, checked and unchecked, give the same bytes. */
static void run_scale_and_rows(krt_context *ctx, float *scaled, float *grid)
{
    krt_module *m = kt_module(ctx, "krt_checks");
    enum { N = 1000, W = 33, H = 7 };
    float *in = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_DEVICE);
    float *out = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_DEVICE);
    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i * 0.5f;
    kt_copy_sync(ctx, in, host, sizeof host);
    float s = 3.0f;
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(s) };
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(kt_kernel(m, "scale"), &d));
    kt_copy_sync(ctx, scaled, out, N * sizeof(float));
    float *g = kt_alloc(ctx, W * H * sizeof(float), KRT_MEMORY_SHARED);
    uint32_t w = W;
    krt_arg rargs[] = { KRT_ARG(g), KRT_ARG(w) };
    krt_launch_desc rd = { .range = { 2, { W, H } }, .args = rargs, .num_args = 2 };
    KT_OK(krt_launch_sync(kt_kernel(m, "rows"), &rd));
    kt_copy_sync(ctx, grid, g, W * H * sizeof(float));
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, out));
    KT_OK(krt_free(ctx, g));
    krt_module_destroy(m);
}

/* run_scale_and_rows on an unchecked context of the device (desc), then on ctx: the same bytes. */
static void in_bounds_bytes_unchanged(const krt_context_desc *desc, krt_context *ctx)
{
    static float a[1000], b[1000], ga[33 * 7], gb[33 * 7];
    krt_context *plain = kt_context(desc);
    run_scale_and_rows(plain, a, ga);
    krt_context_destroy(plain);
    run_scale_and_rows(ctx, b, gb);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    cr_assert_eq(memcmp(ga, gb, sizeof ga), 0);
}

Test(checks, in_bounds_results_are_unchanged)
{
    krt_context *ctx = checked();
    in_bounds_bytes_unchanged(&(krt_context_desc){ 0 }, ctx);
    krt_context_destroy(ctx);
}

/* One work-item refused five times in a loop: the record names its first refusal and counts the other four. */
Test(checks, refusals_in_a_loop_are_named_first_and_counted)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "refuse_in_loop");
    enum { N = 64, WHO = 37 };
    int *a = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    uint32_t n = N, times = 5, who = WHO;
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(n), KRT_ARG(times), KRT_ARG(who) };
    krt_launch_desc d = kt_desc1(N, args, 4);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel refuse_in_loop");
    assert_message_has("work-item (37, 0, 0)");
    assert_message_has("4-byte load");
    assert_message_has("0 bytes past its end (at offset 256)");
    assert_message_has("; 4 more accesses were refused too");
    int host[N];
    kt_copy_sync(ctx, host, a, sizeof host);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], i == WHO ? 7 : i, "a[%d] is %d", i, host[i]);
    /* A launch that refuses nothing after it: the record was reset. */
    times = 0;
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_free(ctx, a));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Loops a checked module tests once at their entry (spirv/bounds.cpp, version_loop): rows, columns, a walk downwards
 * and stores, each run once where every address is inside (the loop unchecked: exact results) and once where a
 * walk runs out (the loop checked access by access: exactly the accesses outside are refused, named and counted). */
enum { LW = 16, LH = 8 };

static krt_result run_loop(krt_kernel *k, uint64_t n, krt_arg *args, uint32_t num_args)
{
    krt_launch_desc d = kt_desc1(n, args, num_args);
    return krt_launch_sync(k, &d);
}

static void assert_message_lacks(const char *what)
{
    const char *m = krt_last_error_message();
    cr_assert(strstr(m, what) == NULL, "the message names %s: %s", what, m);
}

Test(checks, loops_tested_at_their_entry_refuse_exactly_what_falls_outside)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    int host[LW * LH], out[LW + 1], want;
    for (int i = 0; i < LW * LH; i++)
        host[i] = (i * 37) % 101 - 50;
    int *a = kt_alloc(ctx, sizeof host, KRT_MEMORY_DEVICE);
    int *o = kt_alloc(ctx, sizeof out, KRT_MEMORY_DEVICE);
    kt_copy_sync(ctx, a, host, sizeof host);

    /* Rows: whole ones, then one element more, which the last row takes past the end. */
    krt_kernel *rows = kt_kernel(m, "row_sum");
    uint64_t w = LW, len = LW;
    krt_arg rargs[] = { KRT_ARG(a), KRT_ARG(o), KRT_ARG(w), KRT_ARG(len) };
    for (int pass = 0; pass < 2; pass++) {
        len = LW + pass;
        KT_EXPECT(run_loop(rows, LH, rargs, 4), pass ? KRT_ERROR_OUT_OF_BOUNDS : KRT_SUCCESS);
        if (pass) {
            assert_message_has("kernel row_sum");
            assert_message_has("work-item (7, 0, 0)");
            assert_message_has("4-byte load");
            assert_message_lacks("more accesses");
        }
        kt_copy_sync(ctx, out, o, LH * sizeof(int));
        for (int i = 0; i < LH; i++) {
            want = 0;
            for (int t = 0; t < (int)len; t++)
                want += i * LW + t < LW * LH ? host[i * LW + t] : 0;
            cr_assert_eq(out[i], want, "row %d, %d elements: %d, not %d", i, (int)len, out[i], want);
        }
    }
    /* A loop that runs no iteration reaches nothing, wherever its first address would be. */
    w = (uint64_t)1 << 40;
    len = 0;
    KT_OK(run_loop(rows, LH, rargs, 4));
    kt_copy_sync(ctx, out, o, LH * sizeof(int));
    for (int i = 0; i < LH; i++)
        cr_assert_eq(out[i], 0);

    /* Columns, by a stride the launch gives: one row more makes every column refuse once. */
    krt_kernel *cols = kt_kernel(m, "col_sum");
    uint64_t h = LH;
    w = LW;
    krt_arg cargs[] = { KRT_ARG(a), KRT_ARG(o), KRT_ARG(w), KRT_ARG(h) };
    for (int pass = 0; pass < 2; pass++) {
        h = LH + pass;
        KT_EXPECT(run_loop(cols, LW, cargs, 4), pass ? KRT_ERROR_OUT_OF_BOUNDS : KRT_SUCCESS);
        if (pass) {
            assert_message_has("kernel col_sum");
            assert_message_has("4-byte load");
            assert_message_has("; 15 more accesses were refused too");
        }
        kt_copy_sync(ctx, out, o, LW * sizeof(int));
        for (int j = 0; j < LW; j++) {
            want = 0;
            for (int r = 0; r < LH; r++)
                want += host[r * LW + j];
            cr_assert_eq(out[j], want, "column %d: %d, not %d", j, out[j], want);
        }
    }

    /* Downwards: two elements each, which work-item 0 takes before the start. */
    krt_kernel *down = kt_kernel(m, "down_sum");
    int64_t n = 1;
    krt_arg dargs[] = { KRT_ARG(a), KRT_ARG(o), KRT_ARG(n) };
    for (n = 1; n <= 2; n++) {
        KT_EXPECT(run_loop(down, LW, dargs, 3), n == 2 ? KRT_ERROR_OUT_OF_BOUNDS : KRT_SUCCESS);
        if (n == 2) {
            assert_message_has("kernel down_sum");
            assert_message_has("work-item (0, 0, 0)");
            assert_message_has("4-byte load");
            assert_message_lacks("more accesses");
        }
        kt_copy_sync(ctx, out, o, LW * sizeof(int));
        for (int i = 0; i < LW; i++) {
            want = host[i] + (n == 2 && i > 0 ? host[i - 1] : 0);
            cr_assert_eq(out[i], want, "down_sum %d of %d: %d, not %d", i, (int)n, out[i], want);
        }
    }

    /* A loop tested at its end runs its first iteration whatever the count: one work-item more reads past the end
     * once. */
    krt_kernel *once = kt_kernel(m, "row_sum_at_least_once");
    len = 1;
    KT_EXPECT(run_loop(once, LH + 1, rargs, 4), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel row_sum_at_least_once");
    assert_message_has("work-item (8, 0, 0)");
    assert_message_lacks("more accesses");
    kt_copy_sync(ctx, out, o, (LH + 1) * sizeof(int));
    for (int i = 0; i <= LH; i++)
        cr_assert_eq(out[i], i < LH ? host[i * LW] : 0, "row_sum_at_least_once %d: %d", i, out[i]);

    /* A column whose stride, 2^63 bytes, wraps twice round the address space: its first and third addresses are
     * a's, the second far outside. Only the second is refused. */
    w = (uint64_t)1 << 61;
    h = 3;
    KT_EXPECT(run_loop(cols, 1, cargs, 4), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel col_sum");
    assert_message_lacks("more accesses");
    kt_copy_sync(ctx, out, o, sizeof(int));
    cr_assert_eq(out[0], 2 * host[0], "col_sum over a wrapping stride: %d, not %d", out[0], 2 * host[0]);
    w = LW;

    /* An address the loop does not change: inside, then outside (refused at every iteration), then in a loop that
     * runs no iteration. */
    krt_kernel *same = kt_kernel(m, "same_sum");
    uint64_t at = LW * LH - 1;
    len = 3;
    krt_arg qargs[] = { KRT_ARG(a), KRT_ARG(o), KRT_ARG(at), KRT_ARG(len) };
    KT_OK(run_loop(same, 1, qargs, 4));
    kt_copy_sync(ctx, out, o, sizeof(int));
    cr_assert_eq(out[0], 3 * host[LW * LH - 1]);
    at = LW * LH;
    KT_EXPECT(run_loop(same, 1, qargs, 4), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("; 2 more accesses were refused too");
    len = 0;
    KT_OK(run_loop(same, 1, qargs, 4));

    /* Stores: every row of a, then one work-item more, whose whole row lies past the end: none of its stores is
     * made, and every other one is. */
    krt_kernel *stamp = kt_kernel(m, "stamp");
    len = LW;
    krt_arg sargs[] = { KRT_ARG(a), KRT_ARG(w), KRT_ARG(len) };
    for (int pass = 0; pass < 2; pass++) {
        KT_EXPECT(run_loop(stamp, LH + pass, sargs, 3), pass ? KRT_ERROR_OUT_OF_BOUNDS : KRT_SUCCESS);
        if (pass) {
            assert_message_has("kernel stamp");
            assert_message_has("work-item (8, 0, 0)");
            assert_message_has("4-byte store");
            assert_message_has("0 bytes past its end (at offset 512)");
            assert_message_has("; 15 more accesses were refused too");
        }
        kt_copy_sync(ctx, host, a, sizeof host);
        for (int i = 0; i < LW * LH; i++)
            cr_assert_eq(host[i], (i / LW) * 1000 + i % LW, "m[%d] is %d", i, host[i]);
    }
    KT_OK(krt_free(ctx, a));
    KT_OK(krt_free(ctx, o));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Groups a checked module tests once at the kernel's entry (on the CPU, spirv/bounds.cpp, version_groups): a shifted
 * read over a grid of groups, partial ones among them, in two and three dimensions. The groups whose reads are all
 * inside run unchecked; exactly the reads outside are refused, wherever in its group's box the work-item is (its
 * far corner included), and every other result is the read's. */
static void shift_case(krt_context *ctx, krt_kernel *k, int *in, int *out, const int *host, uint32_t w, uint32_t h,
                       uint32_t d, const uint32_t group[3], int dx, int dy, int dz, int refused, const char *who)
{
    enum { MAX = 32 * 16 * 3 };
    int32_t sx = dx, sy = dy, sz = dz;
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(w), KRT_ARG(h), KRT_ARG(sx), KRT_ARG(sy), KRT_ARG(sz) };
    krt_launch_desc desc = { .range = { d == 1 ? 2u : 3u, { w, h, d } }, .args = args, .num_args = 7 };
    memcpy(desc.group, group, sizeof desc.group);
    krt_result r = krt_launch_sync(k, &desc);
    cr_assert_eq(r, refused ? KRT_ERROR_OUT_OF_BOUNDS : KRT_SUCCESS, "shift (%d, %d, %d) over %u x %u x %u: %s", dx, dy,
                 dz, w, h, d, krt_result_string(r));
    if (refused == 1)
        assert_message_lacks("more accesses");
    else if (refused > 1) {
        char more[64];
        snprintf(more, sizeof more, "; %d more accesses were refused too", refused - 1);
        assert_message_has(more);
    }
    if (who)
        assert_message_has(who);
    int got[MAX];
    kt_copy_sync(ctx, got, out, w * h * d * sizeof(int));
    long n = (long)w * h * d;
    for (long z = 0; z < d; z++)
        for (long y = 0; y < h; y++)
            for (long x = 0; x < w; x++) {
                long at = ((z + dz) * h + y + dy) * w + x + dx;
                int want = at >= 0 && at < n ? host[at] : 0;
                cr_assert_eq(got[(z * h + y) * w + x], want, "shift (%d, %d, %d), item (%ld, %ld, %ld): %d, not %d", dx,
                             dy, dz, x, y, z, got[(z * h + y) * w + x], want);
            }
}

Test(checks, groups_tested_at_the_entry_refuse_exactly_what_falls_outside)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "shift3d");
    enum { W = 32, H = 16, D = 3 };
    int host[W * H * D];
    for (int i = 0; i < W * H * D; i++)
        host[i] = (i * 7919) % 1009 - 500;
    const uint32_t g2[3] = { 8, 4, 1 }, g3[3] = { 8, 4, 2 };
    /* Whole groups of 8 x 4 over 32 x 16, then partial ones over 30 x 14, then 3-D. */
    for (int shape = 0; shape < 3; shape++) {
        uint32_t w = shape == 1 ? 30 : W, h = shape == 1 ? 14 : H, d = shape == 2 ? D : 1;
        const uint32_t *g = shape == 2 ? g3 : g2;
        size_t bytes = (size_t)w * h * d * sizeof(int);
        int *in = kt_alloc(ctx, bytes, KRT_MEMORY_DEVICE), *out = kt_alloc(ctx, bytes, KRT_MEMORY_DEVICE);
        kt_copy_sync(ctx, in, host, bytes);
        char last[64], first_row[32];
        snprintf(last, sizeof last, "work-item (%u, %u, %u)", w - 1, h - 1, d - 1);
        snprintf(first_row, sizeof first_row, ", 0, 0)");
        shift_case(ctx, k, in, out, host, w, h, d, g, 0, 0, 0, 0, NULL);
        shift_case(ctx, k, in, out, host, w, h, d, g, 1, 0, 0, 1, last);           /* the far corner only */
        shift_case(ctx, k, in, out, host, w, h, d, g, -1, 0, 0, 1, "work-item (0, 0, 0)");
        shift_case(ctx, k, in, out, host, w, h, d, g, 0, 1, 0, (int)w, NULL);     /* the last row */
        shift_case(ctx, k, in, out, host, w, h, d, g, 0, -1, 0, (int)w, first_row);
        shift_case(ctx, k, in, out, host, w, h, d, g, 3, 2, 0, (int)(2 * w + 3), NULL); /* two rows and 3 */
        if (d > 1) {
            shift_case(ctx, k, in, out, host, w, h, d, g, 0, 0, 1, (int)(w * h), NULL);      /* the last plane */
            shift_case(ctx, k, in, out, host, w, h, d, g, 0, 1, -1, (int)(w * (h - 1)), NULL);
        }
        KT_OK(krt_free(ctx, in));
        KT_OK(krt_free(ctx, out));
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(checks, two_d_overrun_names_the_work_item)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    enum { W = 16, H = 4 };
    float *g = kt_alloc(ctx, W * H * sizeof(float), KRT_MEMORY_DEVICE);
    uint32_t w = W;
    krt_arg args[] = { KRT_ARG(g), KRT_ARG(w) };
    /* One row too many: items (x, 4) write past the end; the first refused is one of them. */
    krt_launch_desc d = { .range = { 2, { W, H + 1 } }, .args = args, .num_args = 2 };
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "rows"), &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel rows");
    assert_message_has(", 4, 0)");
    assert_message_has("argument 0 (m)");
    KT_OK(krt_free(ctx, g));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A freed allocation is no longer reachable; a new one is, from its first launch. */
Test(checks, table_follows_alloc_and_free)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "scale");
    enum { N = 128 };
    for (int round = 0; round < 20; round++) {
        float *in = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_DEVICE);
        float *out = kt_alloc(ctx, N * sizeof(float), round % 2 ? KRT_MEMORY_SHARED : KRT_MEMORY_HOST);
        float s = 2.0f;
        krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(s) };
        krt_launch_desc d = kt_desc1(N, args, 3);
        KT_OK(krt_launch(k, &d));
        if (round % 3 == 0)
            KT_OK(krt_context_synchronize(ctx));
        else
            KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        KT_OK(krt_free(ctx, in));
        KT_OK(krt_free(ctx, out));
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(checks, event_wait_reports)
{
    krt_context *ctx = checked();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "off_by_one");
    int *out = kt_alloc(ctx, 8 * sizeof(int), KRT_MEMORY_DEVICE);
    uint32_t n = 8;
    krt_event *e;
    KT_OK(krt_event_create(ctx, NULL, &e));
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(9, args, 2);
    d.signal = e;
    KT_OK(krt_launch(k, &d));
    KT_EXPECT(krt_event_synchronize(e, UINT64_MAX), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel off_by_one");
    KT_OK(krt_context_synchronize(ctx));
    krt_event_destroy(e);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(checks, environment_and_bad_values)
{
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&(krt_context_desc){ .checks = 7 }, &ctx), KRT_ERROR_INVALID_ARGUMENT);
    setenv("KRT_CHECK", "everything", 1);
    KT_EXPECT(krt_context_create(NULL, &ctx), KRT_ERROR_INVALID_ARGUMENT);
    assert_message_has("KRT_CHECK");
    setenv("KRT_CHECK", "bounds", 1);
    ctx = kt_context(NULL);
    unsetenv("KRT_CHECK");
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "off_by_one");
    int *out = kt_alloc(ctx, 8 * sizeof(int), KRT_MEMORY_DEVICE);
    uint32_t n = 8;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(9, args, 2);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* ---- The host device: checked libraries (krt-cc --host --checks) ------------------------------------------
 * There an access is checked against every allocation of the context and the memory of the work-item's own (its
 * stack, its group's __local memory, the library's variables), and a refused one ends its work-group. */

static krt_context *checked_host(void)
{
    return kt_context(&(krt_context_desc){ .device = "host", .checks = KRT_CHECK_BOUNDS });
}

static krt_launch_desc desc_group(uint64_t n, uint32_t group, const krt_arg *args, uint32_t num_args)
{
    krt_launch_desc d = kt_desc1(n, args, num_args);
    d.group[0] = group;
    d.group[1] = d.group[2] = 1;
    return d;
}

Test(checks, host_off_by_one_is_refused_named_and_its_group_ends)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "off_by_one");
    enum { N = 64 };
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    KT_OK(krt_memfill(ctx, NULL, out, &(int){ -1 }, sizeof(int), N * sizeof(int)));
    uint32_t n = N;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    /* Groups of 8 over 65 work-items: the last group is work-item 64 alone. */
    krt_launch_desc d = desc_group(N + 1, 8, args, 2);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel off_by_one, work-item (64, 0, 0): a 4-byte store");
    assert_message_has("outside every allocation of the context");
    assert_message_has("argument 0 (out)");
    assert_message_has("0 bytes past its end (at offset 256)");
    assert_message_has("its work-group ended there");
    int host[N];
    kt_copy_sync(ctx, host, out, sizeof host);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], i + 1, "out[%d] is %d", i, host[i]);
    /* The record is reset and the context works on. */
    KT_OK(krt_context_synchronize(ctx));
    n = N - 1;
    KT_OK(krt_launch_sync(k, &d));
    kt_assert_usable(ctx);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A load 4 GiB past an allocation, from an address nothing maps (the process would fault): refused, not made. */
static void wild_load_is_refused(krt_context *ctx, krt_module *m)
{
    int *in = kt_alloc(ctx, 16 * sizeof(int), KRT_MEMORY_SHARED), *out = kt_alloc(ctx, 16 * sizeof(int), KRT_MEMORY_SHARED);
    uint32_t off = 1u << 30; /* 4 GiB past in */
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(off) };
    krt_launch_desc d = kt_desc1(1, args, 3);
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "read_past"), &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel read_past, work-item (0, 0, 0): a 4-byte load");
    assert_message_has("outside every allocation of the context"); /* the nearest is where the allocator put it */
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, out));
}

/* The host device runs kernels in this process: without checks the stray store lands in its memory
 * (unchecked_context_is_not_instrumented shows it on ze_pocl); with them it is not made. */
Test(checks, host_stray_write_and_a_wild_load_are_not_made)
{
    krt_context *ctx = checked_host();
    memset(victim, 0, sizeof victim);
    KT_EXPECT(poke_victim(ctx), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel poke, work-item (0, 0, 0): a 4-byte store");
    assert_message_has("argument 0 (base)");
    cr_assert_eq(victim[1], 0, "the refused store was made");
    krt_module *m = kt_module(ctx, "krt_checks");
    wild_load_is_refused(ctx, m);
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(checks, host_atomics_globals_and_results_are_checked)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    atomics_are_checked(ctx, m);
    /* Program-scope variables and __constant tables are the library's own memory: never refused. */
    globals_are_reached(ctx, m);
    krt_module_destroy(m);
    /* In-bounds launches give the bytes of an unchecked context. */
    in_bounds_bytes_unchanged(&(krt_context_desc){ .device = "host" }, ctx);
    krt_context_destroy(ctx);
}

/* A range large enough that the pool's threads share it (the host device runs a few thousand work-items on the
 * submitting thread alone), from two queues at once: every in-bounds result right, the refusal named. */
Test(checks, host_pool_threads_and_two_queues)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    enum { N = 1 << 16 };
    float *in = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED);
    float *out[2] = { kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED),
                      kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED) };
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 1000);
    krt_queue *q[2];
    KT_OK(krt_queue_create(ctx, NULL, &q[0]));
    KT_OK(krt_queue_create(ctx, NULL, &q[1]));
    krt_kernel *scale = kt_kernel(m, "scale");
    float f[2] = { 2.0f, 3.0f };
    for (int round = 0; round < 20; round++)
        for (int k = 0; k < 2; k++) {
            krt_arg args[] = { KRT_ARG(in), KRT_ARG(out[k]), KRT_ARG(f[k]) };
            krt_launch_desc d = kt_desc1(N, args, 3);
            d.queue = q[k];
            KT_OK(krt_launch(scale, &d));
        }
    KT_OK(krt_queue_synchronize(q[0]));
    KT_OK(krt_queue_synchronize(q[1]));
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++)
            cr_assert_eq(out[k][i], f[k] * (float)(i % 1000), "out[%d][%d] is %g", k, i, out[k][i]);
    /* One work-item past the end of a large range, in groups of 64: named, and every other group's results made. */
    int *o = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    uint32_t n = N;
    krt_arg oargs[] = { KRT_ARG(o), KRT_ARG(n) };
    krt_launch_desc od = desc_group(N + 1, 64, oargs, 2);
    od.queue = q[1];
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "off_by_one"), &od), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel off_by_one, work-item (65536, 0, 0): a 4-byte store");
    for (int i = 0; i < N; i++)
        cr_assert_eq(o[i], i + 1, "o[%d] is %d", i, o[i]);
    krt_queue_destroy(q[0]);
    krt_queue_destroy(q[1]);
    KT_OK(krt_free(ctx, o));
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, out[0]));
    KT_OK(krt_free(ctx, out[1]));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Barrier kernels: __local memory (a kernel-scope array, an argument) and private arrays across barriers are the
 * work-items' own; an input read past its end is refused. As work-item loops, then on fibers (KRT_HOST_FIBERS=1,
 * read when the kernel is made). */
static void host_barrier_kernels(void)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_barriers");
    enum { N = 1000, G = 64, GROUPS = (N + G - 1) / G };
    int *in = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    int *partial = kt_alloc(ctx, GROUPS * sizeof(int), KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        in[i] = i % 17 - 3;
    uint32_t n = N;
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(partial), KRT_ARG(n) };
    krt_launch_desc d = desc_group(GROUPS * G, G, args, 3);
    krt_kernel *reduce = kt_kernel(m, "krt_bar_reduce");
    KT_OK(krt_launch_sync(reduce, &d));
    for (int g = 0; g < GROUPS; g++) {
        int want = 0;
        for (int i = g * G; i < (g + 1) * G && i < N; i++)
            want += in[i];
        cr_assert_eq(partial[g], want, "partial[%d] is %d, expected %d", g, partial[g], want);
    }
    /* The tiles: a __local argument and a private array live across barriers. */
    enum { T = 3 };
    int *out = kt_alloc(ctx, 3 * GROUPS * G * sizeof(int), KRT_MEMORY_SHARED);
    uint32_t tiles = T;
    krt_arg targs[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(G * sizeof(int)), KRT_ARG(n), KRT_ARG(tiles) };
    krt_launch_desc td = desc_group(GROUPS * G, G, targs, 5);
    KT_OK(krt_launch_sync(kt_kernel(m, "krt_bar_tiles"), &td));
    for (int i = 0; i < GROUPS * G; i++) {
        int lid = i % G, next = (lid + 1) % G, acc = 0;
        for (int t = 0; t < T; t++) {
            size_t at = (size_t)t * GROUPS * G + (size_t)(i - lid + next);
            acc += (at < N ? in[at] : t) * (t + 1);
        }
        cr_assert_eq(out[3 * i], acc, "out[%d] is %d, expected %d", 3 * i, out[3 * i], acc);
    }
    /* n past the input's end: the first read past it is refused. */
    n = N + 1;
    KT_EXPECT(krt_launch_sync(reduce, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel krt_bar_reduce, work-item (1000, 0, 0): a 4-byte load");
    assert_message_has("argument 0 (in)");
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, partial));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(checks, host_barrier_loops_reach_their_own_memory)
{
    unsetenv("KRT_HOST_FIBERS");
    host_barrier_kernels();
}

Test(checks, host_barrier_fibers_reach_their_own_memory)
{
    setenv("KRT_HOST_FIBERS", "1", 1);
    host_barrier_kernels();
    unsetenv("KRT_HOST_FIBERS");
}

/* OpenCL C source is compiled checked for a checked context; a prebuilt library must be a checked one. */
Test(checks, host_needs_a_checked_library)
{
    krt_context *ctx = checked_host();
    static const char src[] = "kernel void past(global int *a, uint n) { a[get_global_id(0) + n] = 1; }\n";
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .source = src }, &m));
    krt_kernel *k = kt_kernel(m, "past");
    int *a = kt_alloc(ctx, 4 * sizeof(int), KRT_MEMORY_DEVICE);
    uint32_t n = 1;
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(4, args, 2);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel past, work-item (3, 0, 0): a 4-byte store");
    KT_OK(krt_free(ctx, a));
    krt_module_destroy(m);
    /* The unchecked library of a module: refused at its creation, naming the way out. */
    char spv[4096], lib[4096];
    snprintf(spv, sizeof spv, "%s/krt_checks.spv", getenv("KRT_TEST_KERNELS"));
    snprintf(lib, sizeof lib, "%s/host/krt_checks.so", getenv("KRT_TEST_KERNELS"));
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .path = spv, .host_library = lib }, &m),
              KRT_ERROR_MODULE_BUILD_FAILURE);
    assert_message_has("krt-cc --host --checks");
    /* A .spv without a checked library beside it (krt_checks_vec has no native library of either kind). */
    snprintf(spv, sizeof spv, "%s/krt_checks_vec.spv", getenv("KRT_TEST_KERNELS"));
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .path = spv }, &m), KRT_ERROR_IO);
    assert_message_has("krt_checks_vec.checked.so");
    assert_message_has("krt-cc --host --checks");
    /* A checked library whose kernel has no group runner (built by hand, not by krt-cc): its kernel is refused, as
     * the instrumentation finds its slot through the runner; in an unchecked context too, which runs a checked
     * library unchecked. */
    snprintf(spv, sizeof spv, "%s/vadd.spv", getenv("KRT_KERNELS"));
    snprintf(lib, sizeof lib, "%s/norunner/vadd.checked.so", getenv("KRT_TEST_KERNELS"));
    krt_context *plain = kt_context(&(krt_context_desc){ .device = "host" });
    krt_context *both[] = { ctx, plain };
    for (int i = 0; i < 2; i++) {
        m = NULL;
        krt_result r = krt_module_create(both[i], &(krt_module_desc){ .path = spv, .host_library = lib }, &m);
        krt_kernel *k2 = NULL;
        if (r == KRT_SUCCESS)
            r = krt_kernel_get(m, "vadd", &k2);
        cr_assert_eq(r, KRT_ERROR_UNSUPPORTED_FEATURE, "%s: %s", krt_result_name(r), krt_last_error_message());
        if (m)
            krt_module_destroy(m);
        kt_assert_usable(both[i]);
    }
    krt_context_destroy(plain);
    krt_context_destroy(ctx);
}

/* The shadow map (driver/host/shadow.c) lets an allocation through once a launch has taken in the context's table;
 * freed, its memory is refused again at once, though the heap keeps it mapped: a store there through another
 * argument is not made. */
Test(checks, host_freed_memory_is_refused_again)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "poke");
    int *base = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    int *gone = kt_alloc(ctx, 256, KRT_MEMORY_SHARED);
    for (int round = 0; round < 2; round++) {
        KT_OK(poke_at(k, gone, 3, 7 + round));
        cr_assert_eq(gone[3], 7 + round);
    }
    intptr_t at = (intptr_t)&gone[3];
    KT_OK(krt_free(ctx, gone));
    int64_t index = (at - (intptr_t)base) / (int64_t)sizeof(int);
    cr_assert_eq((intptr_t)base + index * (int64_t)sizeof(int), at);
    KT_EXPECT(poke_at(k, base, index, 1234), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel poke, work-item (0, 0, 0): a 4-byte store");
    assert_message_has("outside every allocation of the context");
    KT_OK(krt_free(ctx, base));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* The map's last byte for an allocation whose size is not a multiple of 8 lets through only the bytes inside it: a
 * 12-byte allocation's third int is reached, the fourth (in the 64 bytes krt leaves after it) is refused. */
Test(checks, host_map_ends_exactly_where_the_allocation_does)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    krt_kernel *k = kt_kernel(m, "poke");
    int *a = kt_alloc(ctx, 3 * sizeof(int), KRT_MEMORY_SHARED);
    for (int round = 0; round < 2; round++) {
        KT_OK(poke_at(k, a, 2, 5 + round));
        cr_assert_eq(a[2], 5 + round);
        KT_EXPECT(poke_at(k, a, 3, 5 + round), KRT_ERROR_OUT_OF_BOUNDS);
        assert_message_has("kernel poke, work-item (0, 0, 0): a 4-byte store");
        assert_message_has("0 bytes past its end (at offset 12)");
        KT_OK(krt_context_synchronize(ctx));
    }
    KT_OK(krt_free(ctx, a));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A program may install a SIGSEGV handler of its own after the map's (Python's faulthandler.enable(), say): the next
 * launch puts the map's back, and faults that are not the map's still reach the program's. */
static volatile sig_atomic_t program_handler_ran;
static void program_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    program_handler_ran = 1;
}

Test(checks, host_map_handler_comes_back_and_passes_other_faults_on)
{
    krt_context *ctx = checked_host();
    krt_module *m = kt_module(ctx, "krt_checks");
    struct sigaction sa, old, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = program_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGSEGV, &sa, &old), 0);
    /* A load 4 GiB past an allocation: its test reads a page of the map that nothing made, which faults. */
    wild_load_is_refused(ctx, m);
    cr_assert_eq(program_handler_ran, 0, "the map's fault went to the program's handler");
    cr_assert_eq(sigaction(SIGSEGV, NULL, &now), 0);
    cr_assert(!(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != program_handler, "the map's handler is not back");
    /* Any other SIGSEGV goes on to the program's handler. */
    raise(SIGSEGV);
    cr_assert_eq(program_handler_ran, 1, "the program's handler did not run");
    cr_assert_eq(sigaction(SIGSEGV, &old, NULL), 0);
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* A checked library built with KRT_HOST_CHECK_CALLS=1 (a call before every access, no shadow map) runs as one of the
 * map does: in bounds the same results, the overrun refused and named. */
Test(checks, host_library_of_calls_checks_the_same)
{
    char spv[4096], lib[4096], mapped[4096];
    snprintf(spv, sizeof spv, "%s/krt_checks.spv", getenv("KRT_TEST_KERNELS"));
    snprintf(lib, sizeof lib, "%s/calls/krt_checks.checked.so", getenv("KRT_TEST_KERNELS"));
    snprintf(mapped, sizeof mapped, "%s/host/krt_checks.checked.so", getenv("KRT_TEST_KERNELS"));
    const char *libs[] = { lib, mapped };
    for (int i = 0; i < 2; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        cr_assert(h, "%s: %s", libs[i], dlerror());
        cr_assert_eq(dlsym(h, "krt_host_checks_shadow") != NULL, i == 1, "%s", libs[i]);
        dlclose(h);
    }
    krt_context *ctx = checked_host();
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = spv, .host_library = lib }, &m));
    krt_kernel *k = kt_kernel(m, "off_by_one");
    enum { N = 64 };
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    uint32_t n = N;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = desc_group(N, 8, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], i + 1, "out[%d] is %d", i, out[i]);
    d = desc_group(N + 1, 8, args, 2);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_OUT_OF_BOUNDS);
    assert_message_has("kernel off_by_one, work-item (64, 0, 0): a 4-byte store");
    assert_message_has("0 bytes past its end (at offset 256)");
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Where the map's 16 TiB of address space cannot be had (here a limit on the process's address space), a library of
 * the map is refused at its module's creation, naming the reason and the library that needs no map. */
Test(checks, host_library_of_the_map_without_it_is_refused_naming_the_way_out)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    cr_skip_test("the sanitizers' own maps need more address space than the limit leaves");
#endif
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "ulimit -v 16777216; KRT_CHECK=bounds KRT_DEVICE=host '%s/bin/offbyone' 2>&1; echo \"exit $?\"",
             getenv("KRT_BUILD"));
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char out[16384];
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = 0;
    pclose(p);
    cr_assert(strstr(out, "KRT_ERROR_UNSUPPORTED_FEATURE"), "%s", out);
    cr_assert(strstr(out, "offbyone.checked.so cannot run here: its shadow map"), "%s", out);
    cr_assert(strstr(out, "could not be reserved"), "%s", out);
    cr_assert(strstr(out, "KRT_HOST_CHECK_CALLS=1 krt-cc --host --checks"), "%s", out);
    cr_assert(strstr(out, "exit 2"), "%s", out);
}

Test(checks, result_code_has_a_name)
{
    cr_assert_str_eq(krt_result_name(KRT_ERROR_OUT_OF_BOUNDS), "KRT_ERROR_OUT_OF_BOUNDS");
    cr_assert_str_neq(krt_result_string(KRT_ERROR_OUT_OF_BOUNDS), "unknown result code");
}
