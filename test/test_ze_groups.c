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

/* ---- Generic pointers ---- */

/* The codes ze_generic.cl's space_code gives: to_global, to_local or to_private non-null, with get_fence's flags
 * (CLK_GLOBAL_MEM_FENCE 2, CLK_LOCAL_MEM_FENCE 1, none for private memory) from bit 4. */
enum { SPACE_GLOBAL = 1 | 2 << 4, SPACE_LOCAL = 2 | 1 << 4, SPACE_PRIVATE = 4 };

T(generic_pointers_know_their_space) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_generic");
    ze_kernel_handle_t k = zt_kernel_create(m, "generic_ptrs");
    static const shape shapes[] = {{1, {5, 1, 1}, {1, 1, 1}}, {1, {38, 1, 1}, {7, 1, 1}}, {1, {209, 1, 1}, {64, 1, 1}}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int pick = 0; pick <= 3; pick++) {
            const shape *s = &shapes[si];
            size_t items = shape_items(s);
            int *g = zt_alloc_shared(&f.env, items * sizeof(int));
            int *out = zt_alloc_shared(&f.env, items * 8 * sizeof(int));
            for (size_t i = 0; i < items; i++) g[i] = 1000 + (int)i;
            memset(out, 0xab, items * 8 * sizeof(int));
            zt_set_args(k, 4, sizeof g, &g, sizeof out, &out, s->group[0] * sizeof(int), NULL, sizeof pick, &pick);
            launch(&f, k, s);
            /* The loop leaves r on p for no turn, then g, l, g. */
            int loop = pick == 0 ? SPACE_PRIVATE : pick % 2 ? SPACE_GLOBAL : SPACE_LOCAL;
            for (size_t i = 0; i < items; i++) {
                int sel = (i & 1) ? SPACE_GLOBAL : i % 3 == 0 ? SPACE_LOCAL : SPACE_PRIVATE;
                int val = (i & 1) ? 1001 + (int)i : i % 3 == 0 ? 101 + (int)i : 1 + (int)i;
                int want[8] = {SPACE_GLOBAL, SPACE_LOCAL, SPACE_PRIVATE, sel, loop, (int)i + 1, 101 + (int)i, val};
                static const char *what[8] = {"bump(global)", "bump(local)", "bump(private)", "space of a select",
                                              "space after a loop", "private after bump", "local after bump",
                                              "the value through the cast"};
                for (int w = 0; w < 8; w++)
                    cr_assert_eq(out[i * 8 + w], want[w], "%s, pick %d: work-item %zu: %s = %d, expected %d",
                                 describe(s), pick, i, what[w], out[i * 8 + w], want[w]);
                cr_assert_eq(g[i], 1001 + (int)i, "g[%zu] = %d after one bump", i, g[i]);
            }
            ZT_OK(zeMemFree(f.env.context, g));
            ZT_OK(zeMemFree(f.env.context, out));
        }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* Builds a module expected to fail; returns the result and puts the build log (malloc'd) in *log. */
static ze_result_t build_refused(fixture *f, const char *name, char **log) {
    size_t size = 0;
    void *il = zt_load_spirv(name, &size);
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t lh = NULL;
    ze_result_t r = zt_module_create_il(&f->env, il, size, NULL, &m, &lh);
    free(il);
    *log = lh ? zt_build_log_string(lh) : strdup("");
    if (lh) ZT_OK(zeModuleBuildLogDestroy(lh));
    if (m) ZT_OK(zeModuleDestroy(m));
    return r;
}

/* A generic pointer read back from memory: ze_cuda's hardware knows where it points; ze_pocl cannot tell on a CPU
 * and refuses the module, naming the instruction, rather than guess. */
T(generic_pointer_from_memory_runs_or_is_refused_by_name) {
    fixture f;
    fixture_init(&f);
    if (zt_driver_is(f.env.driver, "ze_pocl")) {
        char *log;
        ze_result_t r = build_refused(&f, "ze_generic_memory", &log);
        cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
        cr_assert(strstr(log, "OpGenericCastToPtrExplicit") != NULL, "the log names no instruction: %s", log);
        free(log);
    } else {
        ze_module_handle_t m = zt_module_load(&f.env, "ze_generic_memory");
        ze_kernel_handle_t k = zt_kernel_create(m, "generic_from_memory");
        enum { N = 70 };
        int *g = zt_alloc_shared(&f.env, N * sizeof(int)), *out = zt_alloc_shared(&f.env, N * sizeof(int));
        for (int i = 0; i < N; i++) out[i] = i;
        zt_set_args(k, 3, sizeof g, &g, sizeof out, &out, 32 * sizeof(int), NULL);
        shape s = {1, {N, 1, 1}, {32, 1, 1}};
        launch(&f, k, &s);
        for (int i = 0; i < N; i++) cr_assert_eq(out[i], i & 1 ? 2 : 1, "work-item %d: %d", i, out[i]);
        ZT_OK(zeMemFree(f.env.context, g));
        ZT_OK(zeMemFree(f.env.context, out));
        ZT_OK(zeKernelDestroy(k));
        ZT_OK(zeModuleDestroy(m));
    }
    fixture_fini(&f);
}

/* ctz on every integer width and a vector, against C (ze_ctz.cl): libclc 15 has none, so ze_cuda lowers it to LLVM's
 * cttz (DPC++'s sort needs ctz(long)). ctz of 0 is the width. */
static unsigned ctz_ref(uint64_t v, unsigned bits) {
    unsigned k = 0;
    while (k < bits && !(v >> k & 1)) k++;
    return k;
}

T(ctz_of_every_width) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_ctz");
    ze_kernel_handle_t k = zt_kernel_create(m, "ctz_all");
    enum { N = 200 };
    uint64_t *x = zt_alloc_shared(&f.env, N * sizeof *x);
    uint8_t *out = zt_alloc_shared(&f.env, N * 10);
    for (int i = 0; i < N; i++)
        x[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : i < 66 ? (uint64_t)1 << (i - 2) : ((uint64_t)i * 0x9E3779B97F4A7C15ull) << (i % 64);
    uint32_t n = N;
    zt_set_args(k, 3, sizeof x, &x, sizeof out, &out, sizeof n, &n);
    shape s = {1, {N, 1, 1}, {64, 1, 1}};
    launch(&f, k, &s);
    static const unsigned width[8] = {8, 8, 16, 16, 32, 32, 64, 64};
    for (int i = 0; i < N; i++) {
        for (int w = 0; w < 8; w++)
            cr_assert_eq(out[10 * i + w], ctz_ref(x[i], width[w]), "ctz of the %u-bit 0x%llx: %u, expected %u", width[w],
                         (unsigned long long)x[i], out[10 * i + w], ctz_ref(x[i], width[w]));
        cr_assert_eq(out[10 * i + 8], ctz_ref(x[i] & 0xffffffffu, 32), "ctz of uint2.x of 0x%llx", (unsigned long long)x[i]);
        cr_assert_eq(out[10 * i + 9], ctz_ref(x[i] >> 32, 32), "ctz of uint2.y of 0x%llx", (unsigned long long)x[i]);
    }
    ZT_OK(zeMemFree(f.env.context, x));
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ze_generic_builtins.cl: the builtins with a pointer parameter (frexp, modf, fract, sincos, remquo, lgamma_r, a
 * vector frexp; vload2/4, vstore2/4, vload_half, vload_half2/4, vloada_half3, vstore_half, vstore_half4_rtz,
 * vstorea_half3, vstore_half2_rtp) called on generic pointers into global, local and private memory and through a
 * select of a private and a global pointer, against C's libm and _Float16. PoCL 3.1's library has no generic-pointer
 * overloads ("Cannot find symbol _Z5frexpfPU3AS4i", found building DPC++'s modules): ze_pocl calls the overload of
 * the pointer's space, or the private one through a private copy (spirv/spaces.cpp). ze_pocl only: ze_cuda has not
 * run these yet. */
static const float gb_inputs[] = {0.3f,  -1.75f,  5.5f, 1e-3f, 123.456f, -1e-4f, 2.5f,  7.0f,  -3.3f,
                                  1e6f,  0.5f,    1.0f, -8.25f, 70.0f,   3.0f,   -0.4f, 65.5f, 0.1f};
#define GB_NIN (sizeof gb_inputs / sizeof gb_inputs[0])

static float gb_x(size_t i) { return gb_inputs[i % GB_NIN]; }
static void gb_x4(float x, float v[4]) {
    v[0] = x;
    v[1] = -2.5f * x;
    v[2] = x * 1000.0f;
    v[3] = x + 0.5f;
}

static bool gb_close(float got, double want, double rel) {
    return fabs((double)got - want) <= rel * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

enum { GB_RTE, GB_RTZ, GB_RTP };
static uint16_t gb_half(float x, int mode) {
    _Float16 h = (_Float16)x; /* round to nearest even */
    uint16_t b;
    memcpy(&b, &h, 2);
    float back = (float)h;
    if (mode == GB_RTZ && fabsf(back) > fabsf(x)) b--;
    if (mode == GB_RTP && back < x) b = (b & 0x8000) ? (uint16_t)(b - 1) : (uint16_t)(b + 1);
    return b;
}
static float gb_float(uint16_t b) {
    _Float16 h;
    memcpy(&h, &b, 2);
    return (float)h;
}

T(generic_pointer_builtins) {
    fixture f;
    fixture_init(&f);
    if (!zt_driver_is(f.env.driver, "ze_pocl")) {
        cr_log_info("skipped: ze_pocl only");
        fixture_fini(&f);
        return;
    }
    ze_module_handle_t m = zt_module_load(&f.env, "ze_generic_builtins");
    ze_kernel_handle_t km = zt_kernel_create(m, "generic_math"), kv = zt_kernel_create(m, "generic_vectors");
    static const shape shapes[] = {{1, {5, 1, 1}, {1, 1, 1}}, {1, {45, 1, 1}, {8, 1, 1}}};
    static const char *way[4] = {"global", "local", "private", "select of private and global"};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        size_t n = shape_items(s), g = s->group[0];
        float *xs = zt_alloc_shared(&f.env, n * sizeof(float));
        for (size_t i = 0; i < n; i++) xs[i] = gb_x(i);

        float *rf = zt_alloc_shared(&f.env, n * 4 * 10 * sizeof(float));
        float *of = zt_alloc_shared(&f.env, n * 4 * 3 * sizeof(float));
        int *oi = zt_alloc_shared(&f.env, n * 4 * 3 * sizeof(int));
        int *o4 = zt_alloc_shared(&f.env, n * 4 * 4 * sizeof(int));
        zt_set_args(km, 8, sizeof xs, &xs, sizeof rf, &rf, sizeof of, &of, sizeof oi, &oi, sizeof o4, &o4,
                    g * 3 * sizeof(float), NULL, g * 3 * sizeof(int), NULL, g * 4 * sizeof(int), NULL);
        launch(&f, km, s);
        for (size_t i = 0; i < n; i++) {
            float x = gb_x(i), y = 0.75f + (float)(i % 5), x4[4];
            gb_x4(x, x4);
            int e, q, sign, e4[4];
            float ip, c, fl = floorf(x);
            float want_r[10] = {frexpf(x, &e), modff(x, &ip), fminf(x - fl, 0x1.fffffep-1f), 0, remquof(x, y, &q),
                                lgammaf_r(x, &sign)};
            for (int l = 0; l < 4; l++) want_r[6 + l] = frexpf(x4[l], &e4[l]);
            c = (float)cos((double)x);
            for (int w = 0; w < 4; w++) {
                const float *r = rf + (i * 4 + w) * 10, *fo = of + (i * 4 + w) * 3;
                const int *io = oi + (i * 4 + w) * 3, *i4 = o4 + (i * 4 + w) * 4;
                const char *how = way[w];
                cr_assert_eq(r[0], want_r[0], "%s: frexp(%a) through %s: %a", describe(s), (double)x, how, (double)r[0]);
                cr_assert_eq(io[0], e, "frexp(%a) through %s: exponent %d, expected %d", (double)x, how, io[0], e);
                cr_assert_eq(r[1], want_r[1], "modf(%a) through %s: %a", (double)x, how, (double)r[1]);
                cr_assert_eq(fo[0], ip, "modf(%a) through %s: integral part %a", (double)x, how, (double)fo[0]);
                cr_assert_eq(r[2], want_r[2], "fract(%a) through %s: %a", (double)x, how, (double)r[2]);
                cr_assert_eq(fo[1], fl, "fract(%a) through %s: floor %a", (double)x, how, (double)fo[1]);
                cr_assert(gb_close(r[3], sin((double)x), 2e-6), "sincos(%a) through %s: sin %a", (double)x, how,
                          (double)r[3]);
                cr_assert(gb_close(fo[2], c, 2e-6), "sincos(%a) through %s: cos %a", (double)x, how, (double)fo[2]);
                cr_assert_eq(r[4], want_r[4], "remquo(%a, %a) through %s: %a", (double)x, (double)y, how, (double)r[4]);
                cr_assert((io[1] < 0) == (q < 0) && (abs(io[1]) & 7) == (abs(q) & 7),
                          "remquo(%a, %a) through %s: quotient %d, C's %d", (double)x, (double)y, how, io[1], q);
                cr_assert(gb_close(r[5], want_r[5], 1e-5), "lgamma_r(%a) through %s: %a, C's %a", (double)x, how,
                          (double)r[5], (double)want_r[5]);
                cr_assert_eq(io[2], sign, "lgamma_r(%a) through %s: sign %d", (double)x, how, io[2]);
                for (int l = 0; l < 4; l++) {
                    cr_assert_eq(r[6 + l], want_r[6 + l], "frexp(float4) lane %d of %a through %s: %a", l,
                                 (double)x4[l], how, (double)r[6 + l]);
                    cr_assert_eq(i4[l], e4[l], "frexp(float4) lane %d of %a through %s: exponent %d", l,
                                 (double)x4[l], how, i4[l]);
                }
                /* The same library function in every way: the same bits. */
                cr_assert(memcmp(r, rf + i * 40, 10 * sizeof(float)) == 0 && memcmp(fo, of + i * 12, 12) == 0 &&
                              memcmp(io, oi + i * 12, 12) == 0,
                          "work-item %zu: the results through %s differ from those through global", i, how);
            }
        }
        ZT_OK(zeMemFree(f.env.context, rf));
        ZT_OK(zeMemFree(f.env.context, of));
        ZT_OK(zeMemFree(f.env.context, oi));
        ZT_OK(zeMemFree(f.env.context, o4));

        const float fsent = -7.0f;
        const uint16_t hsent = 0x5555;
        float *fp = zt_alloc_shared(&f.env, n * 4 * 8 * sizeof(float));
        uint16_t *hp = zt_alloc_shared(&f.env, n * 4 * 16 * sizeof(uint16_t));
        float *ld = zt_alloc_shared(&f.env, n * 4 * 16 * sizeof(float));
        for (size_t k = 0; k < n * 4 * 8; k++) fp[k] = fsent;
        for (size_t k = 0; k < n * 4 * 16; k++) hp[k] = hsent;
        zt_set_args(kv, 6, sizeof xs, &xs, sizeof fp, &fp, sizeof hp, &hp, sizeof ld, &ld, g * 8 * sizeof(float), NULL,
                    g * 16 * sizeof(uint16_t), NULL);
        launch(&f, kv, s);
        for (size_t i = 0; i < n; i++) {
            float x = gb_x(i), v[4], sc = x * 0.333f;
            gb_x4(x, v);
            float want_f[8] = {fsent, fsent, v[0], v[1], v[0], v[1], v[2], v[3]};
            uint16_t want_h[16];
            for (int k = 0; k < 16; k++) want_h[k] = hsent;
            want_h[1] = gb_half(sc, GB_RTE);
            for (int l = 0; l < 4; l++) want_h[4 + l] = gb_half(v[l], GB_RTZ);
            for (int l = 0; l < 3; l++) want_h[8 + l] = gb_half(v[l], GB_RTE);
            want_h[12] = gb_half(v[2], GB_RTP);
            want_h[13] = gb_half(v[3], GB_RTP);
            float want_ld[16] = {v[0], v[1], v[0], v[1], v[2], v[3], gb_float(want_h[1])};
            for (int l = 0; l < 4; l++) want_ld[7 + l] = gb_float(want_h[4 + l]);
            for (int l = 0; l < 3; l++) want_ld[11 + l] = gb_float(want_h[8 + l]);
            want_ld[14] = gb_float(want_h[12]);
            want_ld[15] = gb_float(want_h[13]);
            for (int w = 0; w < 4; w++) {
                size_t b = i * 4 + w;
                for (int k = 0; k < 8; k++)
                    cr_assert_eq(fp[b * 8 + k], want_f[k], "%s: x %a through %s: float %d is %a, expected %a",
                                 describe(s), (double)x, way[w], k, (double)fp[b * 8 + k], (double)want_f[k]);
                /* h[11] is half3's padding, which vstorea_half3 may write (PoCL 3.1's global overload does). */
                for (int k = 0; k < 16; k++)
                    if (k != 11) cr_assert_eq(hp[b * 16 + k], want_h[k], "%s: x %a through %s: half %d is 0x%04x, expected 0x%04x",
                                 describe(s), (double)x, way[w], k, hp[b * 16 + k], want_h[k]);
                for (int k = 0; k < 16; k++)
                    cr_assert(memcmp(&ld[b * 16 + k], &want_ld[k], sizeof(float)) == 0,
                              "%s: x %a through %s: loaded %d is %a, expected %a", describe(s), (double)x, way[w], k,
                              (double)ld[b * 16 + k], (double)want_ld[k]);
            }
        }
        ZT_OK(zeMemFree(f.env.context, fp));
        ZT_OK(zeMemFree(f.env.context, hp));
        ZT_OK(zeMemFree(f.env.context, ld));
        ZT_OK(zeMemFree(f.env.context, xs));
    }
    ZT_OK(zeKernelDestroy(km));
    ZT_OK(zeKernelDestroy(kv));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- Atomics ---- */

T(int64_atomics_of_opencl_c_2) {
    fixture f;
    fixture_init(&f);
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZT_OK(zeDeviceGetModuleProperties(f.env.device, &mp));
    cr_assert(mp.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS, "both drivers' devices have 64-bit atomics");
    ze_module_handle_t m = zt_module_load(&f.env, "ze_atomics_c11");
    ze_kernel_handle_t k = zt_kernel_create(m, "atomics_c11_64");
    enum { N = 3001 };
    int64_t *vals = zt_alloc_shared(&f.env, N * sizeof(int64_t)), *a = zt_alloc_shared(&f.env, 8 * sizeof(int64_t));
    uint64_t *u = zt_alloc_shared(&f.env, 2 * sizeof(uint64_t));
    int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN, or = 0, xr = 0, and = -1;
    uint64_t umn = UINT64_MAX, umx = 0;
    for (int i = 0; i < N; i++) {
        vals[i] = (int64_t)value_of((size_t)i) * ((int64_t)1 << 35) + i;
        sum += vals[i];
        mn = vals[i] < mn ? vals[i] : mn;
        mx = vals[i] > mx ? vals[i] : mx;
        or |= vals[i] & 0x7f000000000ff0LL;
        xr ^= vals[i];
        and &= ~((int64_t)1 << (i % 63));
        umn = (uint64_t)vals[i] < umn ? (uint64_t)vals[i] : umn;
        umx = (uint64_t)vals[i] > umx ? (uint64_t)vals[i] : umx;
    }
    int64_t init[8] = {0, INT64_MAX, INT64_MIN, 0, 0, -1, 0, 0};
    memcpy(a, init, sizeof init);
    u[0] = UINT64_MAX;
    u[1] = 0;
    zt_set_args(k, 3, sizeof vals, &vals, sizeof a, &a, sizeof u, &u);
    shape s = {1, {N, 1, 1}, {64, 1, 1}};
    launch(&f, k, &s);
    int64_t want[8] = {sum, mn, mx, or, xr, and, N, N};
    static const char *what[8] = {"fetch_add", "fetch_min", "fetch_max", "fetch_or", "fetch_xor", "fetch_and",
                                  "successful compare-exchanges", "the compare-exchanged counter"};
    for (int w = 0; w < 8; w++)
        cr_assert_eq(a[w], want[w], "%s: %lld, expected %lld", what[w], (long long)a[w], (long long)want[w]);
    cr_assert_eq(u[0], umn, "unsigned fetch_min: %llu, expected %llu", (unsigned long long)u[0], (unsigned long long)umn);
    cr_assert_eq(u[1], umx, "unsigned fetch_max: %llu, expected %llu", (unsigned long long)u[1], (unsigned long long)umx);
    ZT_OK(zeMemFree(f.env.context, vals));
    ZT_OK(zeMemFree(f.env.context, a));
    ZT_OK(zeMemFree(f.env.context, u));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

T(float_atomics_add_min_max) {
    fixture f;
    fixture_init(&f);
    /* Reported: the extension listed, and add, min, max, load and store in both memories on float and double. */
    uint32_t n = 0;
    ZT_OK(zeDriverGetExtensionProperties(f.env.driver, &n, NULL));
    ze_driver_extension_properties_t *e = calloc(n, sizeof *e);
    cr_assert_not_null(e);
    ZT_OK(zeDriverGetExtensionProperties(f.env.driver, &n, e));
    bool listed = false;
    for (uint32_t i = 0; i < n; i++) listed |= strcmp(e[i].name, ZE_FLOAT_ATOMICS_EXT_NAME) == 0;
    free(e);
    cr_assert(listed, "%s is not listed", ZE_FLOAT_ATOMICS_EXT_NAME);
    ze_float_atomic_ext_properties_t fa = {.stype = ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES};
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, .pNext = &fa};
    ZT_OK(zeDeviceGetModuleProperties(f.env.device, &mp));
    ze_device_fp_atomic_ext_flags_t all =
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX;
    cr_assert_eq(fa.fp32Flags, all, "fp32Flags 0x%x", fa.fp32Flags);
    cr_assert_eq(fa.fp64Flags, (mp.flags & ZE_DEVICE_MODULE_FLAG_FP64) ? all : 0, "fp64Flags 0x%x", fa.fp64Flags);
    cr_assert_eq(fa.fp16Flags, 0, "fp16Flags 0x%x: no driver has half atomics", fa.fp16Flags);
    ze_module_handle_t m = zt_module_load(&f.env, "ext/ze_float_atomics");
    ze_kernel_handle_t k = zt_kernel_create(m, "float_atomics");
    static const shape shapes[] = {{1, {1000, 1, 1}, {64, 1, 1}}, {1, {4099, 1, 1}, {256, 1, 1}}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        size_t items = shape_items(s), groups = (items + s->group[0] - 1) / s->group[0];
        float *g = zt_alloc_shared(&f.env, 3 * sizeof(float)), *sums = zt_alloc_shared(&f.env, groups * sizeof(float));
        double *d = zt_alloc_shared(&f.env, 3 * sizeof(double));
        g[0] = 0.0f;
        g[1] = INFINITY;
        g[2] = -INFINITY;
        d[0] = 0.0;
        d[1] = INFINITY;
        d[2] = -INFINITY;
        zt_set_args(k, 4, sizeof g, &g, sizeof d, &d, sizeof sums, &sums, sizeof(float), NULL);
        launch(&f, k, s);
        float sum = 0.0f, mn = INFINITY, mx = -INFINITY;
        for (size_t i = 0; i < items; i++) {
            float v = (float)value_of(i) * 0.25f;
            sum += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            if (i % s->group[0] == s->group[0] - 1 || i == items - 1) {
                float gs = 0.0f;
                for (size_t j = i - i % s->group[0]; j <= i; j++) gs += (float)value_of(j) * 0.25f;
                cr_assert_eq(sums[i / s->group[0]], gs, "%s: group %zu's local sum %g, expected %g", describe(s),
                             i / s->group[0], (double)sums[i / s->group[0]], (double)gs);
            }
        }
        cr_assert_eq(g[0], sum, "%s: float add %g, expected %g", describe(s), (double)g[0], (double)sum);
        cr_assert_eq(g[1], mn, "%s: float min %g, expected %g", describe(s), (double)g[1], (double)mn);
        cr_assert_eq(g[2], mx, "%s: float max %g, expected %g", describe(s), (double)g[2], (double)mx);
        cr_assert_eq(d[0], (double)sum, "%s: double add %g, expected %g", describe(s), d[0], (double)sum);
        cr_assert_eq(d[1], (double)mn, "%s: double min %g, expected %g", describe(s), d[1], (double)mn);
        cr_assert_eq(d[2], (double)mx, "%s: double max %g, expected %g", describe(s), d[2], (double)mx);
        ZT_OK(zeMemFree(f.env.context, g));
        ZT_OK(zeMemFree(f.env.context, d));
        ZT_OK(zeMemFree(f.env.context, sums));
    }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- Half precision: run where the device reports it, refused by name where it does not ---- */

/* C's nextafter on half bits, for finite x and y (the values the test uses). */
static uint16_t half_nextafter(uint16_t x, uint16_t y) {
    _Float16 hx, hy;
    memcpy(&hx, &x, sizeof hx);
    memcpy(&hy, &y, sizeof hy);
    if (hx == hy) return y;
    if ((x & 0x7fff) == 0) return (uint16_t)((y & 0x8000) | 1);
    int up = (hx < hy) != ((x & 0x8000) != 0);
    return (uint16_t)(up ? x + 1 : x - 1);
}

static uint16_t to_half(float v) { /* exact for the multiples of 1/4 used here */
    _Float16 h = (_Float16)v;
    uint16_t b;
    memcpy(&b, &h, sizeof b);
    return b;
}

T(fp16_runs_or_is_refused_by_name) {
    fixture f;
    fixture_init(&f);
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZT_OK(zeDeviceGetModuleProperties(f.env.device, &mp));
    if (!(mp.flags & ZE_DEVICE_MODULE_FLAG_FP16)) {
        cr_assert_eq(mp.fp16flags, 0, "fp16 flags without fp16");
        char *log;
        ze_result_t r = build_refused(&f, "ze_fp16", &log);
        cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
        cr_assert(strstr(log, "Float16") != NULL, "the log names no capability: %s", log);
        free(log);
        fixture_fini(&f);
        return;
    }
    ze_module_handle_t m = zt_module_load(&f.env, "ze_fp16");
    ze_kernel_handle_t k = zt_kernel_create(m, "fp16_ops");
    shape s = {1, {1000, 1, 1}, {64, 1, 1}};
    size_t items = shape_items(&s);
    uint16_t *in = zt_alloc_shared(&f.env, items * 2), *out = zt_alloc_shared(&f.env, items * 2),
             *sums = zt_alloc_shared(&f.env, items * 2);
    for (size_t i = 0; i < items; i++) in[i] = to_half((float)value_of(i) * 0.25f);
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof sums, &sums);
    launch(&f, k, &s);
    group_members *g;
    size_t ng = shape_groups(&s, &g);
    for (size_t gi = 0; gi < ng; gi++)
        for (size_t l = 0; l < g[gi].count; l++) {
            size_t first, n, lane, i = g[gi].items[l];
            subgroup_of(f.sg, l, g[gi].count, &first, &n, &lane);
            float x = (float)value_of(i) * 0.25f, sum = 0.0f;
            for (size_t j = 0; j < n; j++) sum += (float)value_of(g[gi].items[first + j]) * 0.25f;
            cr_assert_eq(out[i], to_half(x * 1.5f + 0.25f), "work-item %zu: x * 1.5 + 0.25 = 0x%04x", i, out[i]);
            cr_assert_eq(sums[i], to_half(sum), "work-item %zu: sub_group_reduce_add = 0x%04x, expected 0x%04x", i,
                         sums[i], to_half(sum));
        }
    free_groups(g, ng);
    ZT_OK(zeKernelDestroy(k));
    /* nextafter on half, by bits (dpnp's test_nextafter_basic[f2] found it computed in float on ze_cuda). */
    k = zt_kernel_create(m, "fp16_nextafter");
    uint16_t *nx = zt_alloc_shared(&f.env, 5 * items * 2);
    zt_set_args(k, 2, sizeof in, &in, sizeof nx, &nx);
    launch(&f, k, &s);
    const uint16_t pinf = 0x7c00, ninf = 0xfc00, zero = 0;
    for (size_t i = 0; i < items; i++) {
        uint16_t x = in[i], want[5] = {half_nextafter(x, pinf), half_nextafter(x, ninf), half_nextafter(x, zero),
                                       half_nextafter(x, ninf), half_nextafter((uint16_t)(x ^ 0x8000), pinf)};
        for (int o = 0; o < 5; o++)
            cr_assert_eq(nx[5 * i + o], want[o], "work-item %zu, x = 0x%04x, result %d: 0x%04x, expected 0x%04x", i,
                         x, o, nx[5 * i + o], want[o]);
    }
    ZT_OK(zeMemFree(f.env.context, nx));
    ZT_OK(zeMemFree(f.env.context, in));
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeMemFree(f.env.context, sums));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- Required sub-group sizes and what no driver implements ---- */

/* intel_reqd_sub_group_size: the device's own size builds and runs; any other is refused, naming the size. */
T(required_subgroup_size) {
    fixture f;
    fixture_init(&f);
    const char *own = f.sg == 1 ? "ze_sg_reqd1" : "ze_sg_reqd32";
    ze_module_handle_t m = zt_module_load(&f.env, own);
    ze_kernel_handle_t k = zt_kernel_create(m, "sg_reqd");
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZT_OK(zeKernelGetProperties(k, &kp));
    cr_assert_eq(kp.requiredSubgroupSize, f.sg, "requiredSubgroupSize %u", kp.requiredSubgroupSize);
    shape s = {1, {100, 1, 1}, {64, 1, 1}};
    uint32_t *out = zt_alloc_shared(&f.env, 100 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    launch(&f, k, &s);
    for (uint32_t i = 0; i < 100; i++) {
        uint32_t l = i % 64, n = i < 64 ? 64 : 36, first = l / f.sg * f.sg;
        uint32_t want = (n - first < f.sg ? n - first : f.sg) * 1000 + l % f.sg;
        cr_assert_eq(out[i], want, "work-item %u: %u, expected %u", i, out[i], want);
    }
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    const char *others[] = {"ze_sg_reqd16", f.sg == 1 ? "ze_sg_reqd32" : "ze_sg_reqd1"};
    const char *sizes[] = {"16", f.sg == 1 ? "32" : "1"};
    for (int i = 0; i < 2; i++) {
        char *log;
        ze_result_t r = build_refused(&f, others[i], &log);
        cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "%s: zeModuleCreate returned 0x%x", others[i], (unsigned)r);
        char want[64];
        snprintf(want, sizeof want, "sub-group size of %s ", sizes[i]);
        cr_assert(strstr(log, want) != NULL && strstr(log, "intel_reqd_sub_group_size") != NULL,
                  "%s: the log does not name the size: %s", others[i], log);
        free(log);
    }
    fixture_fini(&f);
}

/* Device-side enqueue (the DeviceEnqueue capability) is refused naming the capability; the translator itself would
 * have ended the process on its enqueue_kernel. */
T(unimplemented_capability_is_refused_by_name) {
    fixture f;
    fixture_init(&f);
    char *log;
    ze_result_t r = build_refused(&f, "ze_enqueue", &log);
    cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
    cr_assert(strstr(log, "DeviceEnqueue") != NULL, "the log names no capability: %s", log);
    free(log);
    fixture_fini(&f);
}

/* A non-uniform instruction at work-group scope, which SPIR-V allows and neither driver implements: refused,
 * naming the instruction. */
T(unimplemented_instruction_is_refused_by_name) {
    fixture f;
    fixture_init(&f);
    char *log;
    ze_result_t r = build_refused(&f, "asm/ze_nonuniform_workgroup", &log);
    cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
    cr_assert(strstr(log, "OpGroupNonUniformIAdd") != NULL, "the log names no instruction: %s", log);
    free(log);
    fixture_fini(&f);
}

/* An extension the SPIR-V translator does not know: it called exit(11) on the module, ending the caller's process;
 * refused now, naming the extension. */
T(unknown_extension_is_refused_by_name) {
    fixture f;
    fixture_init(&f);
    char *log;
    ze_result_t r = build_refused(&f, "asm/ze_unknown_extension", &log);
    cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
    cr_assert(strstr(log, "SPV_KHR_shader_clock") != NULL, "the log names no extension: %s", log);
    free(log);
    fixture_fini(&f);
}

/* The forms DPC++ writes (test/kernels/asm/ze_dpcpp_groups.spvasm says which), checked like the OpenCL C ones. */
T(dpcpp_forms) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "asm/ze_dpcpp_groups");
    ze_kernel_handle_t k = zt_kernel_create(m, "dpcpp_groups");
    static const shape shapes[] = {{1, {5, 1, 1}, {1, 1, 1}},   {1, {38, 1, 1}, {7, 1, 1}},
                                   {1, {209, 1, 1}, {64, 1, 1}}, {1, {128, 1, 1}, {64, 1, 1}},
                                   {1, {2001, 1, 1}, {1000, 1, 1}}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        if (s->group[0] > kernel_max_group(k)) continue;
        size_t items = shape_items(s);
        float *in = zt_alloc_shared(&f.env, items * sizeof(float)), *out = zt_alloc_shared(&f.env, items * 6 * sizeof(float));
        float *sum = zt_alloc_shared(&f.env, sizeof(float));
        uint32_t *ids = zt_alloc_shared(&f.env, items * 6 * sizeof(uint32_t));
        for (size_t i = 0; i < items; i++) in[i] = (float)value_of(i) * 0.25f;
        memset(out, 0xab, items * 6 * sizeof(float));
        memset(ids, 0xab, items * 6 * sizeof(uint32_t));
        *sum = 0.0f;
        zt_set_args(k, 4, sizeof in, &in, sizeof out, &out, sizeof ids, &ids, sizeof sum, &sum);
        launch(&f, k, s);
        group_members *g;
        size_t ng = shape_groups(s, &g);
        float total = 0.0f;
        for (size_t gi = 0; gi < ng; gi++) {
            float wsum = 0.0f;
            for (size_t l = 0; l < g[gi].count; l++) wsum += in[g[gi].items[l]];
            for (size_t l = 0; l < g[gi].count; l++) {
                size_t first, n, lane, i = g[gi].items[l];
                subgroup_of(f.sg, l, g[gi].count, &first, &n, &lane);
                uint32_t max = g[gi].enq < f.sg ? g[gi].enq : f.sg;
                uint32_t want_ids[6] = {max, (uint32_t)n, (uint32_t)(l / f.sg), (uint32_t)lane,
                                        (uint32_t)((g[gi].count + f.sg - 1) / f.sg), (g[gi].enq + f.sg - 1) / f.sg};
                for (int w = 0; w < 6; w++)
                    cr_assert_eq(ids[i * 6 + w], want_ids[w], "%s: work-item %zu: built-in %d = %u, expected %u",
                                 describe(s), i, w, ids[i * 6 + w], want_ids[w]);
                float ex = 0.0f, positive = 0.0f;
                for (size_t j = 0; j < n; j++) {
                    if (j < lane) ex += in[g[gi].items[first + j]];
                    positive += in[g[gi].items[first + j]] > 0.0f;
                }
                /* shift_group_left by one: the next lane's value, from `next` (the same values) past the end;
                 * defined where the source lane exists. */
                size_t src = lane + 1 < max ? lane + 1 : lane + 1 - max;
                bool shifted = src < n;
                float want[6] = {wsum, ex, in[g[gi].items[0]], shifted ? in[g[gi].items[first + src]] : 0.0f, in[i],
                                 positive};
                static const char *what[6] = {"OpGroupFAdd work-group Reduce", "OpGroupFAdd sub-group ExclusiveScan",
                                              "OpGroupBroadcast (0, 0, 0)", "OpSubgroupShuffleDownINTEL by 1",
                                              "a load through OpGenericCastToPtrExplicit",
                                              "OpGroupNonUniformBallotBitCount"};
                for (int w = 0; w < 6; w++)
                    if (w != 3 || shifted)
                        cr_assert_eq(out[i * 6 + w], want[w], "%s: work-item %zu: %s = %g, expected %g", describe(s),
                                     i, what[w], (double)out[i * 6 + w], (double)want[w]);
                total += in[i];
            }
        }
        cr_assert_eq(*sum, total, "%s: OpAtomicFAddEXT's sum %g, expected %g", describe(s), (double)*sum, (double)total);
        free_groups(g, ng);
        ZT_OK(zeMemFree(f.env.context, in));
        ZT_OK(zeMemFree(f.env.context, out));
        ZT_OK(zeMemFree(f.env.context, sum));
        ZT_OK(zeMemFree(f.env.context, ids));
    }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* ---- Barriers and collectives in the arms of branches (ze_collectives_branch.cl) ---- */

/* On ze_pocl, that module is refused, its log naming the kernel and the barriers in two arms: returns true; on
 * another driver, false (the caller runs the kernel). */
static bool refused_for_two_arms(fixture *f, const char *module, const char *kernel) {
    if (!zt_driver_is(f->env.driver, "ze_pocl")) return false;
    char *log;
    ze_result_t r = build_refused(f, module, &log);
    cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x", (unsigned)r);
    cr_assert(strstr(log, kernel) != NULL && strstr(log, "two arms") != NULL,
              "the log does not name the kernel and why: %s", log);
    free(log);
    return true;
}

/* One group's collectives of its values, as the work-group functions give them. */
typedef struct {
    int n, sum, min, max;
    int incl_add[64], excl_add[64], incl_max[64], excl_min[64];
} group_ref;

/* Group g's reference, for groups of size G (at most 64) over in[0..N): the last may be partial. */
static void group_ref_of(const int *in, int N, int G, int g, group_ref *r) {
    const int *v = in + g * G;
    int n = N - g * G < G ? N - g * G : G;
    r->n = n;
    r->sum = 0, r->min = INT32_MAX, r->max = INT32_MIN;
    int mx = INT32_MIN, mn = INT32_MAX, add = 0;
    for (int j = 0; j < n; j++) {
        r->excl_add[j] = add, r->excl_min[j] = mn;
        add += v[j], mx = v[j] > mx ? v[j] : mx, mn = v[j] < mn ? v[j] : mn;
        r->incl_add[j] = add, r->incl_max[j] = mx;
    }
    r->sum = add, r->min = mn, r->max = mx;
}

/* What kernel `name` of ze_collectives_branch.cl writes for work-item j of a group (ref), pick and arg. */
static int arms_expected(const char *name, const group_ref *r, const int *v, int j, int pick, int arg) {
    if (!strcmp(name, "chain_arms"))
        return pick == 0 ? r->sum : pick == 1 ? r->max + r->incl_add[j] : r->excl_min[j];
    if (!strcmp(name, "nested_arms"))
        return (pick & 1) ? ((pick & 2) ? r->sum : r->min) : r->incl_add[j] - r->max;
    if (!strcmp(name, "arms_in_loop")) {
        int s = 0;
        for (int k = 0; k < arg; k++) s += ((k + pick) & 1) ? r->sum + r->n * k : -(r->max - k);
        return s;
    }
    if (!strcmp(name, "arms_with_local")) return pick ? v[r->n - 1 - j] : 2 * v[(j + 1) % r->n];
    return (j & 1) ? 3 * v[j] : 5 * v[j]; /* divergent_arms */
}

/* Every kernel of ze_collectives_branch.cl, each arm of each, in groups of 64 over 209 work-items (a partial last
 * group): ze_cuda runs them as they are, ze_pocl after making each if-else two ifs in sequence. */
T(collectives_in_arms_run_right) {
    fixture f;
    fixture_init(&f);
    ze_module_handle_t m = zt_module_load(&f.env, "ze_collectives_branch");
    enum { N = 209, G = 64 };
    shape s = {1, {N, 1, 1}, {G, 1, 1}};
    int *in = zt_alloc_shared(&f.env, N * sizeof(int)), *out = zt_alloc_shared(&f.env, 2 * N * sizeof(int));
    for (int i = 0; i < N; i++) in[i] = value_of((size_t)i);
    /* collectives_branch: an if-else, two collectives in each arm, two results a work-item. */
    ze_kernel_handle_t k = zt_kernel_create(m, "collectives_branch");
    for (int pick = 0; pick < 2; pick++) {
        memset(out, 0x5a, 2 * N * sizeof(int));
        zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof pick, &pick);
        launch(&f, k, &s);
        for (int g = 0; g * G < N; g++) {
            group_ref r;
            group_ref_of(in, N, G, g, &r);
            for (int j = 0; j < r.n; j++) {
                int i = g * G + j, want0 = pick ? r.sum : r.min, want1 = pick ? r.incl_max[j] : r.excl_add[j];
                cr_assert_eq(out[i * 2], want0, "pick %d, work-item %d: %d, expected %d", pick, i, out[i * 2], want0);
                cr_assert_eq(out[i * 2 + 1], want1, "pick %d, work-item %d: %d, expected %d", pick, i,
                             out[i * 2 + 1], want1);
            }
        }
    }
    ZT_OK(zeKernelDestroy(k));
    static const struct {
        const char *name;
        int picks, arg; /* arg: a fourth argument when not 0 (-1: 0) */
    } cases[] = {{"chain_arms", 3, 0}, {"nested_arms", 4, 0}, {"arms_in_loop", 2, 5}, {"arms_with_local", 2, 1},
                 {"divergent_arms", 1, -1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        k = zt_kernel_create(m, cases[c].name);
        int arg = cases[c].arg < 0 ? 0 : cases[c].arg;
        for (int pick = 0; pick < cases[c].picks; pick++) {
            memset(out, 0x5a, N * sizeof(int));
            if (!strcmp(cases[c].name, "divergent_arms"))
                zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof arg, &arg);
            else if (cases[c].arg)
                zt_set_args(k, 4, sizeof in, &in, sizeof out, &out, sizeof pick, &pick, sizeof arg, &arg);
            else
                zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof pick, &pick);
            launch(&f, k, &s);
            for (int g = 0; g * G < N; g++) {
                group_ref r;
                group_ref_of(in, N, G, g, &r);
                for (int j = 0; j < r.n; j++) {
                    int want = arms_expected(cases[c].name, &r, in + g * G, j, pick, arg);
                    cr_assert_eq(out[g * G + j], want, "%s, pick %d, work-item %d: %d, expected %d", cases[c].name,
                                 pick, g * G + j, out[g * G + j], want);
                }
            }
        }
        ZT_OK(zeKernelDestroy(k));
    }
    ZT_OK(zeMemFree(f.env.context, in));
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* Barriers in both arms of a branch that nothing shows the whole group reaches: ze_cuda runs the kernel (no
 * work-item reaches a barrier as launched); ze_pocl refuses it by name rather than add a barrier some work-items
 * might not reach. */
T(arms_the_group_need_not_reach_run_or_are_refused) {
    fixture f;
    fixture_init(&f);
    if (refused_for_two_arms(&f, "ze_arms_unproven", "arms_unproven")) {
        fixture_fini(&f);
        return;
    }
    ze_module_handle_t m = zt_module_load(&f.env, "ze_arms_unproven");
    ze_kernel_handle_t k = zt_kernel_create(m, "arms_unproven");
    enum { N = 209, G = 64 };
    shape s = {1, {N, 1, 1}, {G, 1, 1}};
    int *in = zt_alloc_shared(&f.env, N * sizeof(int)), *out = zt_alloc_shared(&f.env, N * sizeof(int));
    for (int i = 0; i < N; i++) in[i] = value_of((size_t)i);
    int sync = 0;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof sync, &sync);
    launch(&f, k, &s);
    for (int i = 0; i < N; i++) {
        int want = ((i % G) & 1) ? 3 * in[i] : 5 * in[i];
        cr_assert_eq(out[i], want, "work-item %d: %d, expected %d", i, out[i], want);
    }
    ZT_OK(zeMemFree(f.env.context, in));
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}

/* Collectives in the cases of a switch: ze_cuda runs them; ze_pocl cannot make a switch ifs in sequence and
 * refuses the kernel by name rather than run it wrongly. */
T(collectives_in_switch_cases_run_or_are_refused) {
    fixture f;
    fixture_init(&f);
    if (refused_for_two_arms(&f, "ze_collectives_switch", "collectives_switch")) {
        fixture_fini(&f);
        return;
    }
    ze_module_handle_t m = zt_module_load(&f.env, "ze_collectives_switch");
    ze_kernel_handle_t k = zt_kernel_create(m, "collectives_switch");
    enum { N = 209, G = 64 };
    shape s = {1, {N, 1, 1}, {G, 1, 1}};
    int *in = zt_alloc_shared(&f.env, N * sizeof(int)), *out = zt_alloc_shared(&f.env, N * sizeof(int));
    for (int i = 0; i < N; i++) in[i] = value_of((size_t)i);
    static const int picks[] = {0, 1, 2, 5, 7};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        int pick = picks[p];
        zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof pick, &pick);
        launch(&f, k, &s);
        for (int g = 0; g * G < N; g++) {
            group_ref r;
            group_ref_of(in, N, G, g, &r);
            for (int j = 0; j < r.n; j++) {
                int want = pick == 0 ? r.sum : pick == 1 ? r.max : pick == 2 ? r.min : pick == 5 ? r.incl_add[j]
                                                                                                 : r.excl_add[j];
                cr_assert_eq(out[g * G + j], want, "pick %d, work-item %d: %d, expected %d", pick, g * G + j,
                             out[g * G + j], want);
            }
        }
    }
    ZT_OK(zeMemFree(f.env.context, in));
    ZT_OK(zeMemFree(f.env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    fixture_fini(&f);
}
