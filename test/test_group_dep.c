/* Groups krt does not choose (docs/design.md, "Groups krt does not choose"), __local arguments sized per work-item,
 * and one rule for groups whoever picks them. Kernels: test/kernels/krt_group_dep.cl. Every result is checked
 * against a C reference, and memory past each buffer against a sentinel: a launch either computes the right values
 * or fails with an error that leaves the output as it was. Runs on ze_pocl and, in make test's second pass, on the
 * host device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(group_dep, .timeout = KT_TEST_TIMEOUT);

#define W 1000
#define H 777
#define SENTINEL (-12345.0f)

typedef struct {
    krt_context *ctx;
    krt_module *m;
    float *in, *out, *want;
} blur_fixture;

static float at(const float *in, int x, int y)
{
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    return in[y * W + x];
}

static blur_fixture blur_setup(void)
{
    blur_fixture f;
    f.ctx = kt_context(NULL);
    f.m = kt_module(f.ctx, "krt_group_dep");
    f.in = kt_alloc(f.ctx, (size_t)W * H * sizeof(float), KRT_MEMORY_SHARED);
    f.out = kt_alloc(f.ctx, ((size_t)W * H + 64) * sizeof(float), KRT_MEMORY_SHARED);
    f.want = malloc((size_t)W * H * sizeof(float));
    cr_assert(f.want);
    for (int i = 0; i < W * H; i++)
        f.in[i] = (float)((unsigned)i * 7919u % 1000u) / 8.0f;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            f.want[y * W + x] = 0.2f * (at(f.in, x, y) + at(f.in, x, y - 1) + at(f.in, x, y + 1) +
                                        at(f.in, x - 1, y) + at(f.in, x + 1, y));
    return f;
}

static void blur_reset(blur_fixture *f)
{
    for (int i = 0; i < W * H + 64; i++)
        f->out[i] = SENTINEL;
}

/* The number of outputs that differ from the reference; the 64 floats past the image must be untouched. */
static int blur_wrong(const blur_fixture *f)
{
    int wrong = 0;
    for (int i = 0; i < W * H; i++)
        wrong += fabsf(f->out[i] - f->want[i]) > 1e-4f * (1.0f + fabsf(f->want[i]));
    for (int i = W * H; i < W * H + 64; i++)
        cr_assert_eq(f->out[i], SENTINEL, "the blur wrote past the image at %d", i - W * H);
    return wrong;
}

static krt_result blur_launch(blur_fixture *f, krt_kernel *k, uint32_t gx, uint32_t gy)
{
    int w = W, h = H;
    krt_arg args[] = {KRT_ARG(f->in), KRT_ARG(f->out), KRT_ARG(w), KRT_ARG(h)};
    krt_launch_desc d = {.range = {2, {W, H, 0}}, .group = {gx, gy, 0}, .args = args, .num_args = 4};
    return krt_launch_sync(k, &d);
}

static void blur_teardown(blur_fixture *f)
{
    free(f->want);
    krt_module_destroy(f->m);
    krt_context_destroy(f->ctx);
}

/* The blur with its 18 x 18 tile and krt's group: refused, naming the kernel, its tile and both ways out, and
 * nothing written. With the group it is written for, right. */
Test(group_dep, tile_kernel_without_a_group_is_refused_not_run_wrong)
{
    blur_fixture f = blur_setup();
    krt_kernel *blur = kt_kernel(f.m, "blur");
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(blur, &info));
    cr_assert(info.group_dependent && !info.any_group && info.uses_barrier && info.uses_static_local);
    cr_assert_str_eq(info.local_vars, "tile (1296 bytes)");

    blur_reset(&f);
    KT_EXPECT(blur_launch(&f, blur, 0, 0), KRT_ERROR_INVALID_GROUP_SIZE);
    const char *msg = krt_last_error_message();
    const char *parts[] = {"kernel blur", "tile (1296 bytes)", "barriers", "krt_launch_desc.group",
                           "reqd_work_group_size", "KRT_ANY_GROUP(blur)", "krt_kernel_set_any_group"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        cr_assert(strstr(msg, parts[i]), "the message lacks \"%s\": %s", parts[i], msg);
    for (int i = 0; i < W * H + 64; i++)
        cr_assert_eq(f.out[i], SENTINEL, "a refused launch wrote out[%d]", i);
    krt_launch_config c;
    KT_EXPECT(krt_launch_config_get(blur, &(krt_ndrange){2, {W, H, 0}}, &c), KRT_ERROR_INVALID_GROUP_SIZE);
    cr_assert(strstr(krt_last_error_message(), "kernel blur"));

    KT_OK(blur_launch(&f, blur, 16, 16));
    cr_assert_eq(blur_wrong(&f), 0, "blur with its own 16 x 16 groups");
    /* Smaller groups fit the tile too (the halo follows get_local_size). */
    blur_reset(&f);
    KT_OK(blur_launch(&f, blur, 8, 4));
    cr_assert_eq(blur_wrong(&f), 0, "blur with 8 x 4 groups");
    kt_assert_usable(f.ctx);
    blur_teardown(&f);
}

/* What a group of krt's shape would do, run on purpose: a caller's 64 x 8 (krt's 2-D tile on a CPU is 64 wide) gets
 * most of the image wrong. This is why krt does not choose, and shows that the kernel is a fair example. Not on the
 * host device: there the tile is thread-local memory of the library, and the overrun a wild write into it. */
Test(group_dep, a_group_of_krt_shape_gives_wrong_results)
{
    kt_skip_on_host("the tile overrun would write past the host device's thread-local tile");
    blur_fixture f = blur_setup();
    krt_device_info dev;
    KT_OK(krt_context_device_info(f.ctx, &dev));
    if (dev.max_group_size < 512) {
        blur_teardown(&f);
        cr_skip_test("the device's groups stop below 64 x 8");
    }
    blur_reset(&f);
    KT_OK(blur_launch(&f, kt_kernel(f.m, "blur"), 64, 8));
    cr_assert_gt(blur_wrong(&f), W * H / 2, "64 x 8 groups overrun the 18 x 18 tile");
    blur_teardown(&f);
}

/* With reqd_work_group_size krt obeys the kernel: right, on a range that is no multiple of 16 in either dimension. */
Test(group_dep, required_size_is_obeyed)
{
    blur_fixture f = blur_setup();
    krt_kernel *k = kt_kernel(f.m, "blur_reqd");
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(k, &info));
    cr_assert(!info.group_dependent);
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &(krt_ndrange){2, {W, H, 0}}, &c));
    cr_assert(c.group[0] == 16 && c.group[1] == 16 && c.limit == KRT_LIMIT_REQUIRED);
    blur_reset(&f);
    KT_OK(blur_launch(&f, k, 0, 0));
    cr_assert_eq(blur_wrong(&f), 0);
    blur_teardown(&f);
}

/* The module says so at load, for the kernel whose group krt will not choose and for no other. */
Test(group_dep, module_warns_at_load)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_group_dep");
    krt_module_info info;
    KT_OK(krt_module_info_get(m, &info));
    uint32_t blur = 0, unmarked = 0, other = 0;
    for (uint32_t i = 0; i < info.num_warnings; i++) {
        const char *w = info.warnings[i];
        if (strstr(w, "kernel blur:")) {
            blur++;
            cr_assert(strstr(w, "tile (1296 bytes)") && strstr(w, "KRT_ANY_GROUP(blur)"), "%s", w);
        } else if (strstr(w, "kernel count16_unmarked:"))
            unmarked++;
        else if (strstr(w, "kernel "))
            other++;
    }
    cr_assert(blur == 1 && unmarked == 1 && other == 0, "warnings: blur %u, count16_unmarked %u, others %u", blur,
              unmarked, other);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* count16 over n values mod 16 into out, krt choosing the group; returns the launch's result. */
static krt_result count_launch(krt_kernel *k, const uint32_t *in, uint32_t *out, uint32_t n)
{
    memset(out, 0, 16 * sizeof *out);
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    return krt_launch_sync(k, &d);
}

static void count_check(const uint32_t *in, const uint32_t *out, uint32_t n)
{
    uint32_t want[16] = {0};
    for (uint32_t i = 0; i < n; i++)
        want[in[i] % 16]++;
    for (int b = 0; b < 16; b++)
        cr_assert_eq(out[b], want[b], "n %u, bin %d: %u, expected %u", n, b, out[b], want[b]);
}

/* KRT_ANY_GROUP in the source: krt chooses, and the counts are right over awkward ranges. Unmarked, the same
 * kernel is refused until the caller says any group is right, and refused again once it takes that back (the
 * memo does not keep the configurations chosen on its word). */
Test(group_dep, any_group_from_the_source_or_the_caller)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_group_dep");
    krt_kernel *marked = kt_kernel(m, "count16"), *unmarked = kt_kernel(m, "count16_unmarked");
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(marked, &info));
    cr_assert(info.any_group && !info.group_dependent && strcmp(info.local_vars, "bins (64 bytes)") == 0,
              "any %d dependent %d vars %s", info.any_group, info.group_dependent, info.local_vars);
    const uint32_t n_max = 100003;
    uint32_t *in = kt_alloc(ctx, n_max * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t *out = kt_alloc(ctx, 16 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n_max; i++)
        in[i] = i * 2654435761u >> 7;
    const uint32_t sizes[] = {1, 17, 4096, 100003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        KT_OK(count_launch(marked, in, out, sizes[s]));
        count_check(in, out, sizes[s]);
    }

    KT_EXPECT(count_launch(unmarked, in, out, 4096), KRT_ERROR_INVALID_GROUP_SIZE);
    cr_assert(strstr(krt_last_error_message(), "bins (64 bytes)"), "%s", krt_last_error_message());
    KT_OK(krt_kernel_set_any_group(unmarked, 1));
    KT_OK(count_launch(unmarked, in, out, 4096));
    count_check(in, out, 4096);
    KT_OK(krt_kernel_set_any_group(unmarked, 0));
    KT_EXPECT(count_launch(unmarked, in, out, 4096), KRT_ERROR_INVALID_GROUP_SIZE);
    krt_launch_config c;
    KT_EXPECT(krt_launch_config_get(unmarked, &(krt_ndrange){1, {4096}}, &c), KRT_ERROR_INVALID_GROUP_SIZE);
    /* A static group needs no word at all. */
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_U32(1000)};
    krt_launch_desc d = kt_desc1(1000, args, 3);
    d.group[0] = 64;
    memset(out, 0, 16 * sizeof *out);
    KT_OK(krt_launch_sync(unmarked, &d));
    count_check(in, out, 1000);
    KT_EXPECT(krt_kernel_set_any_group(unmarked, 2), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_set_any_group(NULL, 1), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* ---- __local arguments sized per work-item ---- */

typedef struct {
    krt_context *ctx;
    krt_kernel *k;
    float *in, *partial;
    uint32_t *size;
} sum_fixture;

/* scratch_sum over n with a per-item scratch of per bytes, krt's group unless group is given. The group the launch
 * got is what each group reports of its own size (krt_launch_config_get knows no __local arguments); every partial
 * sum is checked against the reference for that partition, and the slot past the last group must stay untouched.
 * Returns the group. */
static uint32_t sum_run(sum_fixture *f, uint32_t n, uint32_t per, uint32_t group)
{
    krt_arg args[] = {KRT_ARG(f->in), KRT_ARG(f->partial), KRT_ARG(f->size), KRT_ARG_LOCAL_PER_ITEM(per)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    d.group[0] = group;
    for (uint32_t g = 0; g <= n; g++)
        f->partial[g] = SENTINEL, f->size[g] = 0;
    KT_OK(krt_launch_sync(f->k, &d));
    uint32_t gs = f->size[0] < n ? f->size[0] : n;
    if (group)
        cr_assert_eq(f->size[0], group < n ? group : n, "n %u: the static group %u ran as %u", n, group, f->size[0]);
    else
        gs = f->size[0];
    cr_assert_gt(gs, 0u, "n %u: group 0 reported no size", n);
    uint32_t groups = n / gs + (n % gs != 0);
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t first = g * gs, items = n - first < gs ? n - first : gs;
        double want = 0;
        for (uint32_t i = first; i < first + items; i++)
            want += f->in[i];
        cr_assert_eq(f->size[g], items, "n %u, group %u of %u: %u items, expected %u", n, g, groups, f->size[g],
                     items);
        cr_assert(fabs(f->partial[g] - want) < 1e-3, "n %u, group %u: %f, expected %f", n, g, f->partial[g], want);
    }
    cr_assert_eq(f->partial[groups], SENTINEL, "n %u: a group past the range wrote its sum", n);
    return group ? group : gs;
}

Test(group_dep, local_argument_per_work_item_follows_the_group)
{
    sum_fixture f;
    f.ctx = kt_context(NULL);
    krt_module *m = kt_module(f.ctx, "krt_group_dep");
    f.k = kt_kernel(m, "scratch_sum");
    const uint32_t n_max = 1u << 20;
    f.in = kt_alloc(f.ctx, n_max * sizeof(float), KRT_MEMORY_SHARED);
    f.partial = kt_alloc(f.ctx, (n_max + 1) * sizeof(float), KRT_MEMORY_SHARED); /* a group may be 1 item */
    f.size = kt_alloc(f.ctx, (n_max + 1) * sizeof(uint32_t), KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n_max; i++)
        f.in[i] = (float)(i % 13) - 6.0f;
    /* One launch per range, krt choosing; the group changes between them, and the scratch with it, warm or not. */
    const uint32_t sizes[] = {1, 7, 1000, 100003, n_max, 1000, 7};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        sum_run(&f, sizes[s], sizeof(float), 0);
    /* A static group: its items times the bytes. */
    sum_run(&f, 1000, sizeof(float), 32);
    sum_run(&f, 1000, sizeof(float), 0);

    /* Bytes per item that bound the group: krt keeps the group within the device's local memory. */
    krt_device_info dev;
    KT_OK(krt_context_device_info(f.ctx, &dev));
    uint32_t per = (uint32_t)(dev.max_shared_local_memory / 6); /* room for 6 items: fewer than any rule aims at */
    uint32_t g = sum_run(&f, 100003, per, 0);
    cr_assert(g >= 1 && (uint64_t)g * per <= dev.max_shared_local_memory && g < 8, "group %u of %u bytes each", g,
              per);
    /* More than the device holds for one item, and a static group whose scratch does not fit: refused, named. */
    krt_arg big[] = {KRT_ARG(f.in), KRT_ARG(f.partial), KRT_ARG(f.size),
                     KRT_ARG_LOCAL_PER_ITEM(dev.max_shared_local_memory + 1)};
    krt_launch_desc d = kt_desc1(1000, big, 4);
    KT_EXPECT(krt_launch(f.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "per work-item"), "%s", krt_last_error_message());
    krt_arg fits_one[] = {KRT_ARG(f.in), KRT_ARG(f.partial), KRT_ARG(f.size), KRT_ARG_LOCAL_PER_ITEM(per)};
    d = kt_desc1(1000, fits_one, 4);
    d.group[0] = 64;
    KT_EXPECT(krt_launch(f.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "of 64"), "%s", krt_last_error_message());
    /* A per-item size for an argument that is not __local is refused as any __local size is. */
    krt_arg wrong[] = {KRT_ARG_LOCAL_PER_ITEM(4), KRT_ARG(f.partial), KRT_ARG(f.size), KRT_ARG_LOCAL_PER_ITEM(4)};
    d = kt_desc1(1000, wrong, 4);
    KT_EXPECT(krt_launch(f.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "argument 0 (in)"), "%s", krt_last_error_message());
    sum_run(&f, 1000, sizeof(float), 0);
    krt_module_destroy(m);
    krt_context_destroy(f.ctx);
}

/* ---- one rule for groups, whoever picks them ---- */

/* For ranges smaller than krt's usual group in 1, 2 and 3 dimensions: the group krt reports, given back as a static
 * group, is accepted and runs the same exact launch; a guard-free kernel writes exactly the range. */
Test(group_dep, the_group_krt_reports_is_the_group_that_runs)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_group_dep");
    krt_kernel *k = kt_kernel(m, "write_id");
    const krt_ndrange ranges[] = {{1, {1000}}, {1, {1}}, {2, {5, 3}}, {2, {1000, 2}}, {3, {3, 2, 5}}};
    const size_t cap = 8192;
    uint32_t *out = kt_alloc(ctx, cap * sizeof(uint32_t), KRT_MEMORY_SHARED);
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &ranges[r], &c));
        uint64_t n = ranges[r].size[0] * (ranges[r].dims > 1 ? ranges[r].size[1] : 1) *
                     (ranges[r].dims > 2 ? ranges[r].size[2] : 1);
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < cap; i++)
                out[i] = 0;
            krt_arg args[] = {KRT_ARG(out)};
            krt_launch_desc d = {.range = ranges[r], .args = args, .num_args = 1};
            if (pass)
                memcpy(d.group, c.group, sizeof d.group);
            KT_OK(krt_launch_sync(k, &d));
            for (size_t i = 0; i < cap; i++)
                cr_assert_eq(out[i], i < n ? (uint32_t)i + 1 : 0u, "range %zu, %s group %u x %u x %u: out[%zu] = %u",
                             r, pass ? "static" : "krt's", c.group[0], c.group[1], c.group[2], i, out[i]);
        }
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
