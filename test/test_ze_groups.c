/* Sub-groups, work-group collectives, generic pointers, float and 64-bit atomics and half precision (issue 38),
 * through the Level Zero loader: every result each work-item writes is compared with a reference computed here
 * from the launch's shape and the sub-group size the device reports (1 on ze_pocl, 32 on ze_cuda), over exact
 * launches (ZE_krt_exact_range) whose last groups are partial, in 1, 2 and 3 dimensions, with groups of 1 up to
 * the kernel's largest. The modules the driver cannot run are refused at zeModuleCreate, naming what they use. */
#include "ze_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(name) Test(ze_groups, name, .timeout = 600)

/* ---- Launch shapes and their reference ---- */

typedef struct {
    uint32_t dims;
    uint64_t range[3];
    uint32_t group[3];
} shape;

/* The work-items of one group in the order of their linear local id, as linear global ids. */
typedef struct {
    size_t count;
    size_t *items;    /* global linear ids, local linear order */
    uint32_t enq;     /* work-items of a full group of the launch */
} group_members;

static size_t shape_items(const shape *s) { return (size_t)(s->range[0] * s->range[1] * s->range[2]); }

/* Every group of the launch, each with its members; returns how many. */
static size_t shape_groups(const shape *s, group_members **out) {
    uint64_t n[3];
    size_t total = 1;
    for (int d = 0; d < 3; d++) {
        n[d] = (s->range[d] + s->group[d] - 1) / s->group[d];
        total *= (size_t)n[d];
    }
    group_members *g = calloc(total, sizeof *g);
    cr_assert_not_null(g);
    size_t k = 0;
    for (uint64_t gz = 0; gz < n[2]; gz++)
        for (uint64_t gy = 0; gy < n[1]; gy++)
            for (uint64_t gx = 0; gx < n[0]; gx++, k++) {
                uint64_t base[3] = {gx * s->group[0], gy * s->group[1], gz * s->group[2]}, real[3];
                for (int d = 0; d < 3; d++) {
                    uint64_t left = s->range[d] - base[d];
                    real[d] = left < s->group[d] ? left : s->group[d];
                }
                g[k].count = (size_t)(real[0] * real[1] * real[2]);
                g[k].enq = s->group[0] * s->group[1] * s->group[2];
                g[k].items = malloc(g[k].count * sizeof(size_t));
                cr_assert_not_null(g[k].items);
                size_t l = 0;
                for (uint64_t z = 0; z < real[2]; z++)
                    for (uint64_t y = 0; y < real[1]; y++)
                        for (uint64_t x = 0; x < real[0]; x++)
                            g[k].items[l++] = (size_t)((base[2] + z) * s->range[1] * s->range[0] +
                                                       (base[1] + y) * s->range[0] + base[0] + x);
            }
    *out = g;
    return total;
}

static void free_groups(group_members *g, size_t n) {
    for (size_t i = 0; i < n; i++) free(g[i].items);
    free(g);
}

static char *describe(const shape *s) {
    static _Thread_local char buf[128];
    snprintf(buf, sizeof buf, "range %llux%llux%llu in groups of %ux%ux%u", (unsigned long long)s->range[0],
             (unsigned long long)s->range[1], (unsigned long long)s->range[2], s->group[0], s->group[1], s->group[2]);
    return buf;
}

/* The shapes each kernel runs: partial last groups in every dimension used, groups of 1, 7, 64, 1000 and the
 * kernel's largest, a uniform launch (the kernel itself rather than its exact variant), and 2-D and 3-D groups
 * whose sub-groups span rows. */
static size_t shapes_for(uint32_t max_group, shape *out) {
    size_t n = 0;
    out[n++] = (shape){1, {5, 1, 1}, {1, 1, 1}};
    out[n++] = (shape){1, {38, 1, 1}, {7, 1, 1}};
    out[n++] = (shape){1, {209, 1, 1}, {64, 1, 1}};
    out[n++] = (shape){1, {128, 1, 1}, {64, 1, 1}};
    if (max_group >= 1000) out[n++] = (shape){1, {2001, 1, 1}, {1000, 1, 1}};
    out[n++] = (shape){1, {(uint64_t)max_group + 100, 1, 1}, {max_group, 1, 1}};
    out[n++] = (shape){2, {37, 11, 1}, {8, 4, 1}};
    out[n++] = (shape){2, {70, 3, 1}, {33, 2, 1}};
    out[n++] = (shape){3, {5, 7, 3}, {2, 3, 2}};
    return n;
}

/* ---- The device and a launch ---- */

typedef struct {
    zt_env env;
    uint32_t sg;      /* the device's sub-group size */
    ze_command_list_handle_t list;
} fixture;

static void fixture_init(fixture *f) {
    zt_init(&f->env);
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZT_OK(zeDeviceGetComputeProperties(f->env.device, &cp));
    cr_assert_eq(cp.numSubGroupSizes, 1, "the drivers have one sub-group size per device");
    f->sg = cp.subGroupSizes[0];
    cr_assert(f->sg == 1 || f->sg == 32, "sub-group size %u", f->sg);
    f->list = zt_immediate_create(&f->env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
}

static void fixture_fini(fixture *f) {
    ZT_OK(zeCommandListDestroy(f->list));
    zt_fini(&f->env);
}

/* The largest group the kernel takes (its maximum group size property). */
static uint32_t kernel_max_group(ze_kernel_handle_t k) {
    ze_kernel_max_group_size_properties_ext_t mg = {.stype = ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES};
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES, .pNext = &mg};
    ZT_OK(zeKernelGetProperties(k, &kp));
    return mg.maxGroupSize;
}

static uint32_t kernel_args(ze_kernel_handle_t k) {
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZT_OK(zeKernelGetProperties(k, &kp));
    return kp.numKernelArgs;
}

/* Launches k over s exactly (the true range as the argument one past the kernel's last) and waits. */
static void launch(fixture *f, ze_kernel_handle_t k, const shape *s) {
    ZT_OK(zeKernelSetGroupSize(k, s->group[0], s->group[1], s->group[2]));
    uint64_t range[3] = {s->range[0], s->range[1], s->range[2]};
    ZT_OK(zeKernelSetArgumentValue(k, kernel_args(k), sizeof range, range));
    ze_group_count_t gc;
    uint32_t *c[3] = {&gc.groupCountX, &gc.groupCountY, &gc.groupCountZ};
    for (int d = 0; d < 3; d++) *c[d] = (uint32_t)((s->range[d] + s->group[d] - 1) / s->group[d]);
    ZT_OK(zeCommandListAppendLaunchKernel(f->list, k, &gc, NULL, 0, NULL));
    zt_immediate_sync(&f->env, f->list);
}

/* The sub-group of local linear id l in a group of count work-items: its first local id, size and the lane. */
static void subgroup_of(uint32_t sg, size_t l, size_t count, size_t *first, size_t *n, size_t *lane) {
    *first = l / sg * sg;
    *lane = l % sg;
    *n = count - *first < sg ? count - *first : sg;
}

/* The value of work-item i of an input buffer: small, mixed in sign, and exact in every sum the groups make. */
static int value_of(size_t i) { return (int)((i * 37 + 11) % 101) - 50; }

/* ---- Sub-group built-in variables ---- */

T(subgroup_builtin_variables) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_subgroups");
    ze_kernel_handle_t k = zt_kernel_create(m, "sg_vars");
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZT_OK(zeKernelGetProperties(k, &kp));
    cr_assert_eq(kp.maxSubgroupSize, f.sg, "maxSubgroupSize %u, the device's sub-groups have %u", kp.maxSubgroupSize,
                 f.sg);
    shape shapes[16];
    size_t ns = shapes_for(kernel_max_group(k), shapes);
    for (size_t si = 0; si < ns; si++) {
        const shape *s = &shapes[si];
        size_t items = shape_items(s);
        uint32_t *out = zt_alloc_shared(&f.env, items * 8 * sizeof(uint32_t));
        memset(out, 0xab, items * 8 * sizeof(uint32_t));
        zt_set_args(k, 1, sizeof out, &out);
        launch(&f, k, s);
        group_members *g;
        size_t ng = shape_groups(s, &g);
        for (size_t gi = 0; gi < ng; gi++)
            for (size_t l = 0; l < g[gi].count; l++) {
                size_t first, n, lane;
                subgroup_of(f.sg, l, g[gi].count, &first, &n, &lane);
                uint32_t want[8] = {(uint32_t)n,
                                    g[gi].enq < f.sg ? g[gi].enq : f.sg,
                                    (uint32_t)((g[gi].count + f.sg - 1) / f.sg),
                                    (g[gi].enq + f.sg - 1) / f.sg,
                                    (uint32_t)(l / f.sg),
                                    (uint32_t)lane,
                                    (uint32_t)l,
                                    0xc0ffee};
                static const char *what[8] = {"get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
                                              "get_enqueued_num_sub_groups", "get_sub_group_id",
                                              "get_sub_group_local_id", "get_local_linear_id", "the end mark"};
                const uint32_t *o = out + g[gi].items[l] * 8;
                for (int w = 0; w < 8; w++)
                    cr_assert_eq(o[w], want[w], "%s: work-item %zu (local %zu): %s = %u, expected %u", describe(s),
                                 g[gi].items[l], l, what[w], o[w], want[w]);
            }
        free_groups(g, ng);
        ZT_OK(zeMemFree(f.env.context, out));
    }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- Reductions and scans, sub-group and work-group, per type ---- */

/* The reference of 9 results (reduce, inclusive, exclusive; add, min, max) of each member of a set, in order. */
#define REF_ARITH(T, NAME, LOWEST, HIGHEST)                                                                        \
    static void ref_##NAME(const T *x, size_t n, T *out /* n * 9 */) {                                           \
        T sum = 0, mn = HIGHEST, mx = LOWEST;                                                                      \
        for (size_t j = 0; j < n; j++) {                                                                           \
            T v = x[j];                                                                                            \
            out[j * 9 + 6] = sum;                                                                                  \
            out[j * 9 + 7] = mn;                                                                                   \
            out[j * 9 + 8] = mx;                                                                                   \
            sum = (T)(sum + v);                                                                                    \
            mn = v < mn ? v : mn;                                                                                  \
            mx = v > mx ? v : mx;                                                                                  \
            out[j * 9 + 3] = sum;                                                                                  \
            out[j * 9 + 4] = mn;                                                                                   \
            out[j * 9 + 5] = mx;                                                                                   \
        }                                                                                                          \
        for (size_t j = 0; j < n; j++) {                                                                           \
            out[j * 9 + 0] = sum;                                                                                  \
            out[j * 9 + 1] = mn;                                                                                   \
            out[j * 9 + 2] = mx;                                                                                   \
        }                                                                                                          \
    }
REF_ARITH(int32_t, i32, INT32_MIN, INT32_MAX)
REF_ARITH(uint32_t, u32, 0, UINT32_MAX)
REF_ARITH(int64_t, i64, INT64_MIN, INT64_MAX)
REF_ARITH(uint64_t, u64, 0, UINT64_MAX)
REF_ARITH(float, f32, -INFINITY, INFINITY)
REF_ARITH(double, f64, -INFINITY, INFINITY)

static const char *const arith_names[9] = {"reduce_add", "reduce_min", "reduce_max", "scan_inclusive_add",
                                           "scan_inclusive_min", "scan_inclusive_max", "scan_exclusive_add",
                                           "scan_exclusive_min", "scan_exclusive_max"};

/* Runs `<scope>_arith_<type>` over every shape and checks each of the 9 results of every work-item; scope_sg
 * splits groups into the device's sub-groups. FMT prints a value. */
#define CHECK_ARITH(T, NAME, TYPE, MAKE, FMT, CAST)                                                                \
    static void check_arith_##NAME(fixture *f, ze_module_handle_t m, const char *prefix, bool per_subgroup) {     \
        char kname[64];                                                                                            \
        snprintf(kname, sizeof kname, "%s_arith_%s", prefix, TYPE);                                                \
        ze_kernel_handle_t k = zt_kernel_create(m, kname);                                                         \
        shape shapes[16];                                                                                          \
        size_t ns = shapes_for(kernel_max_group(k), shapes);                                                       \
        for (size_t si = 0; si < ns; si++) {                                                                       \
            const shape *s = &shapes[si];                                                                          \
            size_t items = shape_items(s);                                                                         \
            T *in = zt_alloc_shared(&f->env, items * sizeof(T));                                                   \
            T *out = zt_alloc_shared(&f->env, items * 9 * sizeof(T));                                              \
            for (size_t i = 0; i < items; i++) in[i] = MAKE(i);                                                    \
            memset(out, 0xab, items * 9 * sizeof(T));                                                              \
            zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);                                                   \
            launch(f, k, s);                                                                                       \
            group_members *g;                                                                                      \
            size_t ng = shape_groups(s, &g);                                                                       \
            T *x = malloc(items * sizeof(T)), *want = malloc(items * 9 * sizeof(T));                               \
            cr_assert(x && want);                                                                                  \
            for (size_t gi = 0; gi < ng; gi++) {                                                                   \
                size_t chunk = per_subgroup ? f->sg : g[gi].count;                                                 \
                for (size_t first = 0; first < g[gi].count; first += chunk) {                                      \
                    size_t n = g[gi].count - first < chunk ? g[gi].count - first : chunk;                          \
                    for (size_t j = 0; j < n; j++) x[j] = in[g[gi].items[first + j]];                              \
                    ref_##NAME(x, n, want);                                                                        \
                    for (size_t j = 0; j < n; j++) {                                                               \
                        size_t item = g[gi].items[first + j];                                                      \
                        for (int w = 0; w < 9; w++)                                                                \
                            cr_assert(out[item * 9 + w] == want[j * 9 + w],                                        \
                                      "%s: %s, work-item %zu (local %zu): %s_%s = " FMT ", expected " FMT, kname,  \
                                      describe(s), item, first + j, prefix, arith_names[w],                        \
                                      (CAST)out[item * 9 + w], (CAST)want[j * 9 + w]);                             \
                    }                                                                                              \
                }                                                                                                  \
            }                                                                                                      \
            free(x);                                                                                               \
            free(want);                                                                                            \
            free_groups(g, ng);                                                                                    \
            ZT_OK(zeMemFree(f->env.context, in));                                                                  \
            ZT_OK(zeMemFree(f->env.context, out));                                                                 \
        }                                                                                                          \
        ZT_OK(zeKernelDestroy(k));                                                                                 \
    }

#define MAKE_I32(i) value_of(i)
#define MAKE_U32(i) ((uint32_t)(value_of(i) + 50) * 1000003u)
#define MAKE_I64(i) ((int64_t)value_of(i) * ((int64_t)1 << 33) + (int64_t)((i) % 7))
#define MAKE_U64(i) (((uint64_t)(value_of(i) + 50) << 40) | (uint64_t)(i))
#define MAKE_F32(i) ((float)value_of(i) * 0.25f)
#define MAKE_F64(i) ((double)value_of(i) * 0.125 + 1024.0)
CHECK_ARITH(int32_t, i32, "int", MAKE_I32, "%d", int)
CHECK_ARITH(uint32_t, u32, "uint", MAKE_U32, "%u", unsigned)
CHECK_ARITH(int64_t, i64, "long", MAKE_I64, "%lld", long long)
CHECK_ARITH(uint64_t, u64, "ulong", MAKE_U64, "%llu", unsigned long long)
CHECK_ARITH(float, f32, "float", MAKE_F32, "%a", double)
CHECK_ARITH(double, f64, "double", MAKE_F64, "%a", double)

static void check_all_arith(const char *module, const char *prefix, bool per_subgroup) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, module);
    check_arith_i32(&f, m, prefix, per_subgroup);
    check_arith_u32(&f, m, prefix, per_subgroup);
    check_arith_i64(&f, m, prefix, per_subgroup);
    check_arith_u64(&f, m, prefix, per_subgroup);
    check_arith_f32(&f, m, prefix, per_subgroup);
    check_arith_f64(&f, m, prefix, per_subgroup);
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

T(subgroup_reductions_and_scans) { check_all_arith("ze_subgroups", "sg", true); }

T(workgroup_reductions_and_scans) { check_all_arith("ze_collectives", "wg", false); }

/* ---- Votes and broadcasts over the work-group ---- */

T(workgroup_votes_and_broadcasts) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_collectives");
    ze_kernel_handle_t ks[3] = {zt_kernel_create(m, "wg_misc_1"), zt_kernel_create(m, "wg_misc_2"),
                                zt_kernel_create(m, "wg_misc_3")};
    shape shapes[16];
    size_t ns = shapes_for(kernel_max_group(ks[0]), shapes);
    for (size_t si = 0; si < ns; si++) {
        const shape *s = &shapes[si];
        ze_kernel_handle_t k = ks[s->dims - 1];
        size_t items = shape_items(s);
        int *in = zt_alloc_shared(&f.env, items * sizeof(int));
        int *out = zt_alloc_shared(&f.env, items * 4 * sizeof(int));
        for (size_t i = 0; i < items; i++) in[i] = value_of(i);
        memset(out, 0xab, items * 4 * sizeof(int));
        zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
        launch(&f, k, s);
        group_members *g;
        size_t ng = shape_groups(s, &g);
        for (size_t gi = 0; gi < ng; gi++) {
            int all = 1, any = 0;
            for (size_t l = 0; l < g[gi].count; l++) {
                all &= in[g[gi].items[l]] > -45;
                any |= in[g[gi].items[l]] > 45;
            }
            int want[4] = {all, any, in[g[gi].items[0]], in[g[gi].items[g[gi].count - 1]]};
            static const char *what[4] = {"work_group_all", "work_group_any", "work_group_broadcast(first)",
                                          "work_group_broadcast(last)"};
            for (size_t l = 0; l < g[gi].count; l++)
                for (int w = 0; w < 4; w++)
                    cr_assert_eq(out[g[gi].items[l] * 4 + w], want[w], "%s: work-item %zu: %s = %d, expected %d",
                                 describe(s), g[gi].items[l], what[w], out[g[gi].items[l] * 4 + w], want[w]);
        }
        free_groups(g, ng);
        ZT_OK(zeMemFree(f.env.context, in));
        ZT_OK(zeMemFree(f.env.context, out));
    }
    for (int d = 0; d < 3; d++) ZT_OK(zeKernelDestroy(ks[d]));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- The other sub-group functions ---- */

enum { SG_MISC = 32 };

static int popcount32(uint32_t v) { return __builtin_popcount(v); }

T(subgroup_shuffles_ballots_and_non_uniform_functions) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_subgroups");
    ze_kernel_handle_t k = zt_kernel_create(m, "sg_misc");
    static const char *what[SG_MISC] = {
        "broadcast(x, 0)", "broadcast(x, n - 1)", "any(x > 40)", "all(x > -45)", "shuffle(x, lane + 1 mod n)",
        "shuffle_xor(x, 1)", "shuffle_up(x, 1)", "shuffle_down(x, 1)", "ballot(x & 1).x", "ballot(x & 1).yzw",
        "ballot_bit_count", "ballot_inclusive_scan", "ballot_exclusive_scan", "ballot_find_lsb", "ballot_find_msb",
        "inverse_ballot", "ballot_bit_extract(b, 0)", "elect", "non_uniform_reduce_add (odd x)",
        "non_uniform_scan_inclusive_mul (odd x)", "non_uniform_reduce_xor (odd x)", "non_uniform_all (odd x)",
        "broadcast_first (odd x)", "non_uniform_scan_exclusive_add (odd x)", "clustered_reduce_add(x, 1)",
        "clustered_reduce_max(x, 4)", "non_uniform_reduce_min", "non_uniform_reduce_logical_or(x > 45)",
        "broadcast(int2, 0).y", "broadcast(long, n - 1)", "neighbour after sub_group_barrier",
        "non_uniform_all_equal(x & 1)"};
    shape shapes[16];
    size_t ns = shapes_for(kernel_max_group(k), shapes);
    for (size_t si = 0; si < ns; si++) {
        const shape *s = &shapes[si];
        size_t items = shape_items(s);
        int *in = zt_alloc_shared(&f.env, items * sizeof(int));
        int *out = zt_alloc_shared(&f.env, items * SG_MISC * sizeof(int));
        for (size_t i = 0; i < items; i++) in[i] = value_of(i);
        memset(out, 0xab, items * SG_MISC * sizeof(int));
        size_t local_bytes = (size_t)s->group[0] * s->group[1] * s->group[2] * sizeof(int);
        zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, local_bytes, NULL);
        launch(&f, k, s);
        group_members *g;
        size_t ng = shape_groups(s, &g);
        for (size_t gi = 0; gi < ng; gi++)
            for (size_t l = 0; l < g[gi].count; l++) {
                size_t first, n, lane;
                subgroup_of(f.sg, l, g[gi].count, &first, &n, &lane);
                int xs[32] = {0};
                for (size_t j = 0; j < n; j++) xs[j] = in[g[gi].items[first + j]];
                int x = xs[lane];
                uint32_t ballot = 0;
                int any = 0, all = 1, lor = 0, eq = 1, mn = INT32_MAX;
                for (size_t j = 0; j < n; j++) {
                    ballot |= (uint32_t)(xs[j] & 1) << j;
                    any |= xs[j] > 40;
                    all &= xs[j] > -45;
                    lor |= xs[j] > 45;
                    eq &= (xs[j] & 1) == (xs[0] & 1);
                    mn = xs[j] < mn ? xs[j] : mn;
                }
                uint32_t le = lane >= 31 ? 0xffffffffu : (2u << lane) - 1, lt = (1u << lane) - 1;
                int want[SG_MISC];
                bool check[SG_MISC];
                for (int w = 0; w < SG_MISC; w++) check[w] = true;
                want[0] = xs[0];
                want[1] = xs[n - 1];
                want[2] = any;
                want[3] = all;
                want[4] = xs[(lane + 1) % n];
                want[5] = (lane ^ 1) < n ? xs[lane ^ 1] : 0;
                check[5] = (lane ^ 1) < n;
                want[6] = lane >= 1 ? xs[lane - 1] : 0;
                check[6] = lane >= 1;
                want[7] = lane + 1 < n ? xs[lane + 1] : 0;
                check[7] = lane + 1 < n;
                want[8] = (int)ballot;
                want[9] = 0;
                want[10] = popcount32(ballot);
                want[11] = popcount32(ballot & le);
                want[12] = popcount32(ballot & lt);
                want[13] = ballot ? __builtin_ctz(ballot) : 0;
                check[13] = ballot != 0;
                want[14] = ballot ? 31 - __builtin_clz(ballot) : 0;
                check[14] = ballot != 0;
                want[15] = x & 1;
                want[16] = xs[0] & 1;
                want[17] = lane == 0;
                /* The non-uniform functions in `if (x & 1)`: the odd work-items of the sub-group take part. */
                int nsum = 0, nxor = 0, nall = 1, nfirst = 0, nex = 0;
                uint32_t nmul = 1; /* wraps as the device's int product does */
                bool seen = false;
                for (size_t j = 0; j < n; j++) {
                    if (!(xs[j] & 1)) continue;
                    nsum += xs[j];
                    if (j <= lane) nmul *= (uint32_t)(xs[j] % 3 + 2);
                    if (j < lane) nex += xs[j];
                    nxor ^= xs[j];
                    nall &= xs[j] > 0;
                    if (!seen) nfirst = xs[j];
                    seen = true;
                }
                if (x & 1) {
                    want[18] = nsum;
                    want[19] = (int)nmul;
                    want[20] = nxor;
                    want[21] = nall;
                    want[22] = nfirst;
                    want[23] = nex;
                } else {
                    for (int w = 18; w <= 23; w++) want[w] = -1;
                }
                want[24] = x;
                size_t c0 = lane & ~(size_t)3;
                int cmax = INT32_MIN;
                for (size_t j = c0; j < c0 + 4 && j < n; j++) cmax = xs[j] > cmax ? xs[j] : cmax;
                want[25] = cmax;
                check[25] = f.sg >= 4;
                want[26] = mn;
                want[27] = lor;
                want[28] = -2 * xs[0];
                want[29] = xs[n - 1];
                want[30] = 3 * xs[(lane + 1) % n];
                want[31] = eq;
                const int *o = out + g[gi].items[l] * SG_MISC;
                for (int w = 0; w < SG_MISC; w++)
                    if (check[w])
                        cr_assert_eq(o[w], want[w], "%s: work-item %zu (sub-group of %zu, lane %zu): %s = %d, expected %d",
                                     describe(s), g[gi].items[l], n, lane, what[w], o[w], want[w]);
            }
        free_groups(g, ng);
        ZT_OK(zeMemFree(f.env.context, in));
        ZT_OK(zeMemFree(f.env.context, out));
    }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}
