/*
 * launch_config.c: the group size krt chooses when the caller gives none, and its memo per (kernel, ndrange).
 *
 * The rule, in order (docs/design.md explains each step):
 *   0. a kernel whose result may depend on its group (kernel-scope __local memory across barriers, no
 *      reqd_work_group_size, no KRT_ANY_GROUP and no krt_kernel_set_any_group) gets no group from krt: the caller
 *      gives one (group_choice_refused, docs/design.md "Groups krt does not choose");
 *   1. a reqd_work_group_size is obeyed exactly (it wins over everything below);
 *   2. the bound: the kernel's max group size from ZE_extension_kernel_max_group_size_properties, else the
 *      device's maxTotalGroupSize;
 *   3. the spill-aware cap: if spill > 0 and bound * spill > budget, bound = max(1, prevpow2(budget / spill));
 *      and with __local arguments sized per work-item, no more items than the device's local memory holds;
 *   4. a measured group (krt_kernel_tune, wisdom) for this kernel and range class, when it fits the limits;
 *      then a work_group_size_hint takes the hint's shape instead of steps 5-8 (compute_hinted);
 *   5. the size set: base * 2^k (base = the preferred multiple) up to the largest within the bound; every
 *      group the rule gives comes from it, so a kernel meets few shapes whatever its ranges;
 *   6. what the kernel and device ask for: on a CPU device a barrier kernel aims at 8 (512 with static
 *      __local memory), a 2-D / 3-D range at a tile of 1024; else the top of the set;
 *   7. small ranges: at least min_groups groups, the size rounded down within the set (not on a CPU device
 *      unless the caller set min_groups);
 *   8. the shape: 1-D the size; 2-D x up to 64 then y; 3-D x up to 64, y up to 4, then z; a range larger
 *      than one group is reshaped where a dimension is narrower than the tile, a smaller one keeps it.
 * krt_launch_config.max_group_size reports the bound of step 2, before the spill cap.
 * The group is never cut to the range: ceil(n / g) groups are launched and the kernel guards the work-items
 * past the end.
 */
#include "krt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t krt__prev_pow2(uint64_t x)
{
    if (x == 0)
        return 0;
    if (x >= (1ull << 31))
        return 1u << 31;
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= x)
        p *= 2;
    return p;
}

uint32_t krt__spill_cap(uint32_t group_size, uint32_t spill, size_t budget)
{
    if (spill == 0 || (uint64_t)group_size * spill <= budget)
        return group_size;
    uint64_t per = budget / spill;
    uint32_t capped = krt__prev_pow2(per > 1 ? per : 1);
    return capped > 1 ? capped : 1;
}

/* The one table of limit names: the trace line, krt-info, the examples and the Python binding all print these. */
static const char *const limit_names[] = { "range",        "static", "required",   "kernel-max", "device-max",
                                           "local-memory", "spill",  "min-groups", "hint",       "barrier",
                                           "shape",        "tuned" };
_Static_assert(sizeof limit_names / sizeof limit_names[0] == KRT_LIMIT_TUNED + 1,
               "one name per krt_limit value");

const char *krt_limit_name(krt_limit limit)
{
    return (unsigned)limit < sizeof limit_names / sizeof limit_names[0] ? limit_names[limit] : "unknown";
}

/* "a x b x c", the first dims sizes, for messages. Three 20-digit numbers and two " x " take 67 bytes. */
static const char *format_sizes(char *buf, size_t cap, const uint64_t size[3], uint32_t dims)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t d = 0; d < dims && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%llu", d ? " x " : "", (unsigned long long)size[d]);
    return buf;
}

krt_result krt__ndrange_check(const krt_ndrange *range, uint32_t *dims_out)
{
    uint32_t dims = range->dims;
    if (dims > 3)
        return krt__fail(KRT_ERROR_INVALID_NDRANGE, "ndrange dims is %u; krt launches 1 to 3 dimensions", dims);
    if (dims == 0) {
        for (uint32_t d = 0; d < 3; d++)
            if (range->size[d] != 0)
                dims = d + 1;
        if (dims == 0)
            return krt__fail(KRT_ERROR_INVALID_NDRANGE, "the ndrange is empty (every size is 0)");
    }
    for (uint32_t d = 0; d < dims; d++)
        if (range->size[d] == 0)
            return krt__fail(KRT_ERROR_INVALID_NDRANGE, "ndrange size[%u] is 0", d);
    /* Work-items are numbered by a 64-bit linear id (get_global_linear_id, and the drivers' own counts of items and
     * groups): a range of 2^32 in each of three dimensions, 2^96 work-items, has no such numbering, and a driver
     * that counted them would wrap and run some other number of them. */
    uint64_t items = 1;
    for (uint32_t d = 0; d < dims; d++)
        if (__builtin_mul_overflow(items, range->size[d], &items)) {
            char sizes[72];
            return krt__fail(KRT_ERROR_INVALID_NDRANGE,
                             "the ndrange %s has more work-items than a 64-bit linear id can number "
                             "(at most 2^64 - 1)",
                             format_sizes(sizes, sizeof sizes, range->size, dims));
        }
    *dims_out = dims;
    return KRT_SUCCESS;
}

/* Without the a + b - 1 of the usual form, which wraps for ranges near 2^64 (a group count of 0 would launch
 * nothing and report success; a zero group once reached a division by zero, which PoCL 5.0 lets kill the
 * process). */
static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t round_up(uint64_t x, uint64_t m)
{
    uint64_t q = ceil_div(x, m);
    return q > UINT64_MAX / m ? UINT64_MAX / m * m : q * m;
}

/* Largest divisor of n that is at most cap. */
static uint32_t divisor_at_most(uint64_t n, uint32_t cap)
{
    for (uint32_t g = cap; g > 1; g--)
        if (n % g == 0)
            return g;
    return 1;
}

/* Group counts per dimension, checked against the device's maxGroupCount. On a driver that cannot run a
 * partial group (in->inexact), a group of the rule's own becomes the largest that divides the range (OpenCL
 * 1.2's way), and a fixed one (static, required) that does not divide it is refused. */
static krt_result finish(const krt__config_input *in, krt_launch_config *out, int fixed)
{
    for (uint32_t d = 0; in->inexact && d < in->dims; d++) {
        if (out->group[d] == 0 || in->size[d] % out->group[d] == 0)
            continue;
        if (fixed)
            return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                             "group[%u] = %u does not divide the range's %llu there, and the driver cannot run a "
                             "partial group (it lacks the ZE_krt_exact_range extension): give a group that divides "
                             "the range", d, out->group[d], (unsigned long long)in->size[d]);
        out->group[d] = divisor_at_most(in->size[d], out->group[d]);
    }
    out->masked = 0;
    uint64_t groups[3], launched[3], items = 1;
    int over = 0, dim_over = 0;
    for (uint32_t d = 0; d < 3; d++) {
        uint64_t size = d < in->dims ? in->size[d] : 1;
        if (out->group[d] == 0)
            out->group[d] = 1;
        groups[d] = ceil_div(size, out->group[d]);
        /* One dimension alone past 2^64 needs more groups than any device allows: the group count says so below. */
        dim_over |= __builtin_mul_overflow(groups[d], (uint64_t)out->group[d], &launched[d]);
        over |= __builtin_mul_overflow(items, launched[d], &items);
    }
    over &= !dim_over;
    /* The driver runs whole groups, groups x group work-items in each dimension (the kernel's body only for the
     * range's own): their number must have a 64-bit linear id too, which a range that has one can miss by the
     * rounding up (4194303 x 2097152 x 2097152 in groups of 64 x 1 x 1 launches 2^64 work-items). Checked before
     * the device's group counts: such a launch is wrong on any device. */
    if (over) {
        char sizes[72], gs[72], all[72];
        return krt__fail(KRT_ERROR_INVALID_NDRANGE,
                         "the ndrange %s in groups of %s launches %s work-items, more than a 64-bit linear id can "
                         "number (at most 2^64 - 1)",
                         format_sizes(sizes, sizeof sizes, in->size, in->dims),
                         format_sizes(gs, sizeof gs, (const uint64_t[3]){ out->group[0], out->group[1],
                                                                          out->group[2] }, in->dims),
                         format_sizes(all, sizeof all, launched, in->dims));
    }
    for (uint32_t d = 0; d < 3; d++) {
        uint64_t size = d < in->dims ? in->size[d] : 1;
        uint32_t max_count = in->dev_max_count[d] ? in->dev_max_count[d] : UINT32_MAX;
        if (groups[d] > max_count)
            return krt__fail(KRT_ERROR_INVALID_NDRANGE,
                             "ndrange size[%u] = %llu needs %llu groups of %u; the device allows %u groups there", d,
                             (unsigned long long)size, (unsigned long long)groups[d], out->group[d], max_count);
        out->groups[d] = (uint32_t)groups[d];
        if (launched[d] != size)
            out->masked = 1;
    }
    return KRT_SUCCESS;
}

/* The kernel's static __local memory plus its __local arguments, for a group of items work-items, within the
 * device's local memory. */
static krt_result check_local_memory(const krt__config_input *in, uint64_t items)
{
    uint64_t per_item = items * in->local_per_item;
    uint64_t local = (uint64_t)in->local_mem_size + in->local_bytes + per_item;
    if (in->dev_max_slm && local > in->dev_max_slm) {
        char items_part[96] = "";
        if (in->local_per_item)
            snprintf(items_part, sizeof items_part, " and %llu bytes of __local arguments per work-item (%u) of %llu",
                     (unsigned long long)per_item, in->local_per_item, (unsigned long long)items);
        return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                         "local memory limit: %u bytes of static __local plus %u bytes of __local arguments%s "
                         "exceed the device's %u bytes per group",
                         in->local_mem_size, in->local_bytes, items_part, in->dev_max_slm);
    }
    return KRT_SUCCESS;
}

/* The most work-items whose per-item __local arguments fit beside the rest of the group's local memory, or
 * UINT32_MAX when nothing bounds them (no per-item arguments, or a device that reports no limit). */
static uint32_t local_memory_items(const krt__config_input *in)
{
    if (!in->local_per_item || !in->dev_max_slm)
        return UINT32_MAX;
    uint64_t used = (uint64_t)in->local_mem_size + in->local_bytes;
    uint64_t fit = used < in->dev_max_slm ? (in->dev_max_slm - used) / in->local_per_item : 0;
    return fit > UINT32_MAX ? UINT32_MAX : (uint32_t)fit;
}

static void fill_common(const krt__config_input *in, krt_launch_config *out)
{
    memset(out, 0, sizeof *out);
    out->dims = in->dims;
    out->preferred_multiple = in->preferred_multiple ? in->preferred_multiple : 1;
    out->spill_mem_size = in->spill_mem_size;
}

krt_result krt__config_static(const krt__config_input *in, const uint32_t group[3], krt_launch_config *out)
{
    fill_common(in, out);
    uint64_t total = 1;
    for (uint32_t d = 0; d < 3; d++) {
        uint32_t g = group[d];
        if (d < in->dims && g == 0)
            return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE, "static group size: group[%u] is 0 in a %u-D range", d,
                             in->dims);
        if (d >= in->dims && g > 1)
            return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                             "static group size: group[%u] is %u but the range has %u dimensions", d, g, in->dims);
        if (g == 0)
            g = 1;
        /* The launch contract (krt.h): a range that is not a multiple of the group gets a partial last group, and
         * one smaller than the group a single partial group, as krt's own choice does (one rule for groups,
         * whoever picks them). finish() refuses both on a driver that cannot run a partial group. */
        if (g > in->dev_max[d])
            return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                             "static group size: group[%u] = %u exceeds the device's maxGroupSize%c = %u", d, g,
                             "XYZ"[d], in->dev_max[d]);
        out->group[d] = g;
        total *= g;
    }
    krt_result r = check_local_memory(in, total);
    if (r != KRT_SUCCESS)
        return r;
    uint32_t bound = in->kernel_max < in->dev_max_total ? in->kernel_max : in->dev_max_total;
    if (total > bound)
        return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                         "static group size: %llu work-items per group exceed the %s of %u",
                         (unsigned long long)total,
                         in->kernel_max_from_ext && in->kernel_max < in->dev_max_total ? "kernel's max group size"
                                                                                         : "device's maxTotalGroupSize",
                         bound);
    if (in->required[0]) {
        for (uint32_t d = 0; d < 3; d++)
            if (out->group[d] != (in->required[d] ? in->required[d] : 1))
                return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                                 "static group size (%u,%u,%u) differs from the kernel's reqd_work_group_size "
                                 "(%u,%u,%u)",
                                 out->group[0], out->group[1], out->group[2], in->required[0], in->required[1],
                                 in->required[2]);
    }
    out->max_group_size = bound;
    out->limit = KRT_LIMIT_STATIC;
    return finish(in, out, 1);
}

/* Shrinks the group g (dims dimensions) to at most target work-items, taking from the highest dimension
 * first so that x, along which work-items are usually contiguous in memory, keeps its size longest. */
static void shrink_to(uint32_t g[3], uint32_t dims, uint64_t target)
{
    if (target < 1)
        target = 1;
    for (uint32_t d = dims; d-- > 0;) {
        uint64_t total = (uint64_t)g[0] * g[1] * g[2];
        if (total <= target)
            return;
        uint64_t others = total / g[d];
        g[d] = others >= target ? 1 : (uint32_t)(target / others);
    }
}

/* The rule for a kernel with a work_group_size_hint and no required size: the hint's shape takes the place
 * of the bound as the size aimed at, and every limit still applies, in this order: maxGroupSize{X,Y,Z}; the
 * bound of steps 2-3 (kernel or device maximum, spill cap); no group larger than the range in any
 * dimension; min_groups on small ranges (rounded up to the preferred multiple, as in step 5). The hint is
 * not rounded to the preferred multiple and not balanced: the author asked for that shape. Dimensions of the
 * hint beyond the range's are ignored. */
static krt_result compute_hinted(const krt__config_input *in, uint32_t bound, krt_limit bound_limit,
                                 krt_launch_config *out)
{
    uint32_t g[3] = { 1, 1, 1 };
    krt_limit limit = KRT_LIMIT_HINT;
    for (uint32_t d = 0; d < in->dims; d++) {
        g[d] = in->hint[d] ? in->hint[d] : 1;
        if (g[d] > in->dev_max[d]) {
            g[d] = in->dev_max[d] ? in->dev_max[d] : 1;
            limit = KRT_LIMIT_DEVICE_MAX;
        }
    }
    if ((uint64_t)g[0] * g[1] * g[2] > bound) {
        shrink_to(g, in->dims, bound);
        limit = bound_limit;
    }
    /* The size the range shaping starts from, as the bound is in the rule without a hint. */
    uint64_t aimed = (uint64_t)g[0] * g[1] * g[2];
    uint64_t n = 1;
    int fits = 1;
    for (uint32_t d = 0; d < in->dims; d++) {
        if (g[d] > in->size[d])
            g[d] = (uint32_t)in->size[d];
        if (g[d] != in->size[d])
            fits = 0;
        n *= in->size[d];
    }
    uint64_t total = (uint64_t)g[0] * g[1] * g[2];
    uint32_t pm = out->preferred_multiple;
    uint64_t want = ceil_div(n, in->min_groups ? in->min_groups : 1);
    if (pm > 1 && pm <= aimed)
        want = round_up(want, pm);
    if (want < total) {
        shrink_to(g, in->dims, want);
        limit = KRT_LIMIT_MIN_GROUPS;
    } else if (fits) {
        limit = KRT_LIMIT_NONE;
    }
    memcpy(out->group, g, sizeof out->group);
    out->limit = limit;
    return finish(in, out, 0);
}

/* The sizes a dynamic launch may get, per kernel and device: base * 2^k for k = 0, 1, ... up to the top.
 * base is the preferred multiple (1 when unknown or larger than the bound); the top is the largest such size
 * within the bound and, for a 1-D range, maxGroupSizeX. Every group total the rule produces is one of these,
 * whatever the range, so that a sequence of ranges reuses a few shapes and a backend that compiles per group
 * size (PoCL's work-group functions, a JIT GPU driver) compiles a few times. */
typedef struct size_set {
    uint32_t base, top;
} size_set;

/* The largest member of the set not above x, or base when x is below it. */
static uint32_t set_floor(const size_set *set, uint64_t x)
{
    if (x <= set->base)
        return set->base;
    if (x >= set->top)
        return set->top;
    return set->base * krt__prev_pow2(x / set->base);
}

/* The 2-D and 3-D tile: x is given up to TILE_X[dims] items (at least the base, which carries the preferred
 * multiple), then y up to TILE_Y[dims], then z takes the rest; whatever a dimension cannot take (the device's
 * per-dimension maximum, or the range rounded up to a power of two) goes to the next, and what is left after z
 * goes back to x, then y. A square-ish tile keeps a stencil's neighbouring rows in the same group, where the
 * former x-first rule gave 1000 x 4 strips. The same tile on every device type: 64 contiguous items in x also
 * keep a GPU's loads coalesced. */
static const uint32_t TILE_X[4] = { 0, 0, 64, 64 };
static const uint32_t TILE_Y[4] = { 0, 0, 0, 4 };

static uint32_t pow2_ceil(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 31))
        p <<= 1;
    return p;
}

/* Spreads total (= base * 2^k) over the dimensions as described above. Each dimension grows by doubling, so
 * every dimension stays a power of two (x: base times a power of two). */
static void spread(const krt__config_input *in, uint32_t base, uint64_t total, int fit_range, uint32_t g[3])
{
    uint32_t dims = in->dims;
    uint64_t cap[3], soft[3];
    for (uint32_t d = 0; d < 3; d++) {
        uint64_t lim = d >= dims ? 1 : fit_range ? pow2_ceil(in->size[d]) : UINT32_MAX;
        if (d == 0 && lim < base)
            lim = base;
        if (lim > in->dev_max[d])
            lim = in->dev_max[d] ? in->dev_max[d] : 1;
        cap[d] = lim;
        soft[d] = lim;
    }
    if (dims >= 2) {
        soft[0] = TILE_X[dims] > base ? TILE_X[dims] : base;
        if (soft[0] > cap[0])
            soft[0] = cap[0];
        if (dims == 3 && TILE_Y[3] < soft[1])
            soft[1] = TILE_Y[3];
    }
    g[0] = base <= cap[0] ? base : 1;
    g[1] = g[2] = 1;
    uint64_t left = total / g[0];
    /* First pass within the tile, second pass within the hard caps. */
    for (int pass = 0; pass < 2 && left > 1; pass++) {
        const uint64_t *lim = pass == 0 ? soft : cap;
        for (uint32_t d = 0; d < dims && left > 1; d++)
            while (left > 1 && (uint64_t)g[d] * 2 <= lim[d]) {
                g[d] *= 2;
                left /= 2;
            }
    }
}

krt_result krt__config_compute(const krt__config_input *in, krt_launch_config *out)
{
    krt_result r = check_local_memory(in, in->required[0] ? 0 : 1);
    if (r != KRT_SUCCESS)
        return r;
    fill_common(in, out);
    uint32_t pm = out->preferred_multiple;

    if (in->required[0]) {
        uint64_t total = 1;
        for (uint32_t d = 0; d < 3; d++) {
            out->group[d] = in->required[d] ? in->required[d] : 1;
            total *= out->group[d];
            if (out->group[d] > in->dev_max[d])
                return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                                 "the kernel's reqd_work_group_size[%u] = %u exceeds the device's maxGroupSize%c = %u",
                                 d, out->group[d], "XYZ"[d], in->dev_max[d]);
        }
        if (total > in->dev_max_total)
            return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                             "the kernel's reqd_work_group_size (%llu items) exceeds the device's maxTotalGroupSize %u",
                             (unsigned long long)total, in->dev_max_total);
        if ((r = check_local_memory(in, total)) != KRT_SUCCESS)
            return r;
        out->max_group_size = (uint32_t)total;
        out->limit = KRT_LIMIT_REQUIRED;
        return finish(in, out, 1);
    }

    /* 2. The bound. */
    uint32_t bound = in->kernel_max ? in->kernel_max : in->dev_max_total;
    krt_limit limit = in->kernel_max_from_ext ? KRT_LIMIT_KERNEL_MAX : KRT_LIMIT_DEVICE_MAX;
    if (bound > in->dev_max_total) {
        bound = in->dev_max_total;
        limit = KRT_LIMIT_DEVICE_MAX;
    }
    if (bound == 0)
        bound = 1;
    out->max_group_size = bound;
    /* 3. The spill cap. */
    uint32_t capped = krt__spill_cap(bound, in->spill_mem_size, in->spill_budget);
    if (capped < bound) {
        bound = capped;
        limit = KRT_LIMIT_SPILL;
    }
    /* 3b. __local arguments sized per work-item: as many items as the device's local memory holds. */
    uint32_t fit = local_memory_items(in);
    if (fit < bound) {
        bound = fit;
        limit = KRT_LIMIT_LOCAL_MEMORY;
    }
    if (in->tuned[0]) {
        /* A measured group (krt_kernel_tune, or wisdom for this device, module and range class): used as it
         * is when it is still within the limits, which wisdom from an older driver need not be. */
        uint64_t total = 1;
        int ok = 1;
        for (uint32_t d = 0; d < 3; d++) {
            uint32_t t = d < in->dims ? in->tuned[d] : 1;
            ok &= t >= 1 && t <= in->dev_max[d];
            total *= t ? t : 1;
            out->group[d] = t ? t : 1;
        }
        if (ok && total <= bound) {
            out->limit = KRT_LIMIT_TUNED;
            return finish(in, out, 0);
        }
        memset(out->group, 0, sizeof out->group);
    }
    if (in->hint[0])
        return compute_hinted(in, bound, limit, out);

    /* 4. The size set. */
    size_set set = { pm > 1 && pm <= bound ? pm : 1, 0 };
    uint32_t top_bound = in->dims == 1 && in->dev_max[0] < bound ? in->dev_max[0] : bound;
    if (top_bound < set.base)
        set.base = 1;
    set.top = set.base * krt__prev_pow2(top_bound / set.base);
    if (in->dims == 1 && in->dev_max[0] < bound && set.top < set.base * krt__prev_pow2(bound / set.base))
        limit = KRT_LIMIT_DEVICE_MAX;

    /* 5. What the kernel and the device ask for. */
    uint64_t aim = set.top;
    if (in->device_cpu && in->uses_barrier) {
        /* On a CPU a work-group runs on one core as loops over its work-items, split at each barrier, with
         * the values live across a barrier kept per work-item: a big group makes every pass long. Small groups,
         * unless the kernel keeps static __local memory, whose set-up and flush per group (a histogram's
         * bins) want groups large enough to amortise them. docs/performance.md has the measurements. */
        aim = set_floor(&set, in->uses_static_local ? 512 : 8);
        if (aim < set.top)
            limit = KRT_LIMIT_BARRIER;
    } else if (in->dims >= 2 && in->device_cpu) {
        /* A tile of 1024 on the CPU: measured against 4096 strips for the 2-D and 3-D example kernels. */
        aim = set_floor(&set, 1024);
        if (aim < set.top)
            limit = KRT_LIMIT_SHAPE;
    } else if (!in->device_cpu && !in->uses_static_local) {
        /* A GPU: 256 work-items. On the H200 the kernel maximum (1024) cost 16% on vadd and 27-36% on the tree
         * reductions against their best, 128-256 (docs/performance.md, section 5): a smaller group leaves the
         * scheduler more groups per multiprocessor and a barrier fewer warps to wait for. A kernel with static
         * __local memory keeps the top: it sets that memory up and flushes it once per group, and
         * histogram_local measured best at 1024 there. */
        aim = set_floor(&set, 256);
        if (aim < set.top)
            limit = KRT_LIMIT_SHAPE;
    }

    /* 6. Small ranges: at least min_groups groups, the group taken from the same set (rounded down, so the
     * count is at least min_groups; never below the base). Not on a CPU device unless the caller set
     * min_groups: there a masked work-item costs a comparison in the work-group's loop, while each new group
     * size costs PoCL a work-group function compile (about 0.4 s on a cold cache, docs/performance.md "lu"),
     * more than a small range runs. */
    uint64_t n = 1;
    for (uint32_t d = 0; d < in->dims; d++)
        n = in->size[d] && n > UINT64_MAX / in->size[d] ? UINT64_MAX : n * in->size[d];
    uint32_t min_groups = in->min_groups ? in->min_groups : 1;
    uint64_t want = ceil_div(n, min_groups);
    if (!in->no_split && want < aim && set_floor(&set, want) < aim) {
        aim = set_floor(&set, want);
        limit = KRT_LIMIT_MIN_GROUPS;
    }

    /* 7. The shape: a range smaller than the group keeps the shape (one masked group), a larger one is
     * reshaped where a dimension of it is narrower than the tile. */
    spread(in, set.base, aim, n > aim, out->group);
    if (in->dims >= 2 && limit != KRT_LIMIT_MIN_GROUPS && limit != KRT_LIMIT_BARRIER &&
        (uint64_t)out->group[0] * out->group[1] * out->group[2] < set.top && limit != KRT_LIMIT_SHAPE)
        limit = KRT_LIMIT_SHAPE;
    int one = 1;
    for (uint32_t d = 0; d < in->dims; d++)
        one &= out->group[d] >= in->size[d];
    if (one)
        limit = KRT_LIMIT_NONE;
    out->limit = limit;
    return finish(in, out, 0);
}

/* Issue 39: a kernel whose work-items need more private memory than the device gives one (ZE_krt_private_memory, krt's
 * drivers) cannot run at any group: on a CPU device it would overrun the stack it runs on and end the process. It is
 * refused at launch (and by krt_launch_config_get, so krt-info shows why), naming both sizes. Caller holds k's lock,
 * after the properties were read. */
static krt_result private_refused(const krt_kernel *k)
{
    if (!k->private_max || k->private_bytes <= k->private_max)
        return KRT_SUCCESS;
    char need[64];
    if (k->private_bytes == UINT64_MAX)
        snprintf(need, sizeof need, "more bytes than 64 bits count");
    else
        snprintf(need, sizeof need, "%llu bytes", (unsigned long long)k->private_bytes);
    return krt__fail(KRT_ERROR_OUT_OF_DEVICE_MEMORY,
                     "%s needs %s of private memory per work-item (its private variables and its callees'), more "
                     "than the %llu bytes the device %s gives a work-item: it cannot be launched there",
                     k->refl->name, need, (unsigned long long)k->private_max, k->ctx->info.name);
}

static void input_fill(krt_kernel *k, const krt_kernel_properties *p, const krt__config_key *key,
                       krt__config_input *in)
{
    const ze_device_compute_properties_t *c = &k->ctx->dev->compute;
    memset(in, 0, sizeof *in);
    in->dims = key->dims;
    memcpy(in->size, key->size, sizeof in->size);
    in->local_bytes = key->local_bytes;
    in->local_per_item = key->local_per_item;
    in->dev_max_total = c->maxTotalGroupSize;
    in->dev_max[0] = c->maxGroupSizeX;
    in->dev_max[1] = c->maxGroupSizeY;
    in->dev_max[2] = c->maxGroupSizeZ;
    in->dev_max_count[0] = c->maxGroupCountX;
    in->dev_max_count[1] = c->maxGroupCountY;
    in->dev_max_count[2] = c->maxGroupCountZ;
    in->dev_max_slm = c->maxSharedLocalMemory;
    memcpy(in->required, p->required_group, sizeof in->required);
    memcpy(in->hint, k->refl->group_hint, sizeof in->hint);
    in->kernel_max = p->max_group_size;
    in->kernel_max_from_ext = p->max_group_size_from_extension;
    in->preferred_multiple = p->preferred_multiple;
    in->local_mem_size = p->local_mem_size;
    in->spill_mem_size = p->spill_mem_size;
    in->spill_budget = k->ctx->spill_budget;
    in->min_groups = k->ctx->min_groups;
    in->device_cpu = k->ctx->dev->props.type == ZE_DEVICE_TYPE_CPU;
    in->no_split = in->device_cpu && k->ctx->min_groups_default;
    if (!in->required[0])
        krt__wisdom_find(k, key->dims, in->size, in->tuned);
    in->uses_barrier = k->refl->uses_barrier;
    /* Where a group's work-items share the device's private memory (a CPU driver's barrier kernel keeps their
     * variables on one stack), the group is as large as that memory holds: the kernel's maximum for this launch. */
    if (k->private_per_group && k->private_max && k->private_bytes && k->private_bytes <= k->private_max) {
        uint64_t fit = k->private_max / k->private_bytes;
        if (fit < in->kernel_max)
            in->kernel_max = (uint32_t)fit;
    }
    in->inexact = !k->ctx->drv->has_exact_range_ext;
    in->uses_static_local = k->refl->uses_static_local || p->local_mem_size > 0;
}

static uint64_t key_hash(const krt__config_key *key)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ key->dims ^ ((uint64_t)key->local_bytes << 32) ^
                 ((uint64_t)key->local_per_item << 8);
    for (int d = 0; d < 3; d++) {
        h ^= key->size[d] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    }
    return h;
}

static int key_equal(const krt__config_key *a, const krt__config_key *b)
{
    return a->dims == b->dims && a->local_bytes == b->local_bytes && a->local_per_item == b->local_per_item &&
           a->size[0] == b->size[0] &&
           a->size[1] == b->size[1] && a->size[2] == b->size[2];
}

static krt__config_entry *memo_find(krt_kernel *k, const krt__config_key *key)
{
    if (!k->config_cap)
        return NULL;
    uint32_t mask = k->config_cap - 1;
    for (uint32_t i = (uint32_t)key_hash(key) & mask;; i = (i + 1) & mask) {
        krt__config_entry *e = &k->configs[i];
        if (!e->used)
            return NULL;
        if (key_equal(&e->key, key))
            return e;
    }
}

static krt__config_entry *memo_insert(krt_kernel *k, const krt__config_key *key, const krt_launch_config *cfg)
{
    if ((k->config_count + 1) * 4 >= k->config_cap * 3) {
        uint32_t cap = k->config_cap ? k->config_cap * 2 : 16;
        krt__config_entry *table = calloc(cap, sizeof *table);
        if (!table)
            return NULL;
        for (uint32_t i = 0; i < k->config_cap; i++) {
            if (!k->configs[i].used)
                continue;
            uint32_t j = (uint32_t)key_hash(&k->configs[i].key) & (cap - 1);
            while (table[j].used)
                j = (j + 1) & (cap - 1);
            table[j] = k->configs[i];
        }
        free(k->configs);
        k->configs = table;
        k->config_cap = cap;
    }
    uint32_t mask = k->config_cap - 1;
    uint32_t i = (uint32_t)key_hash(key) & mask;
    while (k->configs[i].used)
        i = (i + 1) & mask;
    k->configs[i].used = 1;
    k->configs[i].key = *key;
    k->configs[i].config = *cfg;
    k->config_count++;
    return &k->configs[i];
}

static void config_memo_empty(krt_kernel *k)
{
    free(k->configs);
    k->configs = NULL;
    k->config_cap = k->config_count = 0;
    k->last_config = NULL;
}

/* Checks the range and builds its memo key: unused dimensions count as 1. */
static krt_result make_key(const krt_ndrange *range, uint32_t local_bytes, uint32_t local_per_item,
                           krt__config_key *key)
{
    uint32_t dims;
    krt_result r = krt__ndrange_check(range, &dims);
    if (r != KRT_SUCCESS)
        return r;
    *key = (krt__config_key){ dims, local_bytes, local_per_item,
                              { range->size[0], dims > 1 ? range->size[1] : 1, dims > 2 ? range->size[2] : 1 } };
    return KRT_SUCCESS;
}

/* Step 0 of the rule: a kernel whose result may depend on its group size gets none from krt. Kernel-scope __local
 * memory that a group shares across barriers is how a kernel comes to depend on it (a tile sized for 16 x 16
 * items), and nothing in SPIR-V tells a tile that fits any group from one that fits one; so unless the kernel has
 * a reqd_work_group_size (then krt obeys it) or its source or its caller says any group is right, the caller
 * gives the group. Cold: it formats. */
__attribute__((cold, noinline)) static krt_result group_choice_refused(const krt_kernel *k)
{
    const krt_spv_kernel *kr = k->refl;
    return krt__fail(KRT_ERROR_INVALID_GROUP_SIZE,
                     "krt does not choose a group for kernel %s: its kernel-scope __local memory, %s, is shared by "
                     "the work-items of a group across barriers, so its result may depend on the group size. Give "
                     "the group the kernel is written for: at launch (krt_launch_desc.group, Python group=), or in "
                     "the kernel (__attribute__((reqd_work_group_size(X, Y, Z)))). If any group is right, say so: "
                     "KRT_ANY_GROUP(%s) in its source (krt_kernel.h), or krt_kernel_set_any_group (Python "
                     "kernel.any_group = True)",
                     kr->name, kr->local_vars[0] ? kr->local_vars : "static __local variables", kr->name);
}

krt_result krt__config_lookup(krt_kernel *k, const krt_ndrange *range, uint32_t local_bytes, uint32_t local_per_item,
                              const krt_launch_config **out)
{
    krt__config_key key;
    krt_result r = make_key(range, local_bytes, local_per_item, &key);
    if (r != KRT_SUCCESS)
        return r;

    if (k->ctx->flags & KRT_CONTEXT_FLAG_NO_MEMO) {
        /* The debug knob: everything a cache-less runtime asks per launch, asked again. */
        if (!k->any_group && krt__group_dependent(k->refl))
            return group_choice_refused(k);
        int has_ext = 0;
        krt_kernel_properties props;
        if ((r = krt__driver_query_max_group_ext(k->ctx->driver, &has_ext)) != KRT_SUCCESS)
            return r;
        if ((r = krt__kernel_query_properties(k, has_ext, &props)) != KRT_SUCCESS)
            return r;
        if ((r = private_refused(k)) != KRT_SUCCESS)
            return r;
        krt__config_input in;
        input_fill(k, &props, &key, &in);
        if ((r = krt__config_compute(&in, &k->unmemoized)) != KRT_SUCCESS)
            return r;
        *out = &k->unmemoized;
        return KRT_SUCCESS;
    }

    /* New wisdom (a tuning, a load) since the memo was filled: the memo may hold what the rule chose where
     * wisdom now decides. One relaxed load on the warm path. */
    uint64_t gen = atomic_load_explicit(&k->ctx->wisdom_generation, memory_order_relaxed);
    if (k->wisdom_generation != gen) {
        config_memo_empty(k);
        k->wisdom_generation = gen;
    }
    /* Warm path: the last configuration, then the table. No driver call, no allocation. */
    krt__config_entry *e = k->last_config;
    if (e && key_equal(&e->key, &key)) {
        *out = &e->config;
        return KRT_SUCCESS;
    }
    e = memo_find(k, &key);
    if (!e) {
        /* Checked here, on a miss only: a refused kernel has no memo entries (krt_kernel_set_any_group empties
         * the memo when it takes its word back). */
        if (!k->any_group && krt__group_dependent(k->refl))
            return group_choice_refused(k);
        krt_kernel_properties *props;
        if ((r = krt__kernel_properties_locked(k, &props)) != KRT_SUCCESS)
            return r;
        if ((r = private_refused(k)) != KRT_SUCCESS)
            return r;
        krt__config_input in;
        krt_launch_config cfg;
        input_fill(k, props, &key, &in);
        if ((r = krt__config_compute(&in, &cfg)) != KRT_SUCCESS)
            return r;
        e = memo_insert(k, &key, &cfg);
        if (!e)
            return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the launch configuration memo");
    }
    k->last_config = e;
    *out = &e->config;
    return KRT_SUCCESS;
}

/* The static-size check of a launch, with the same inputs as the dynamic rule; the last check is kept so that
 * a repeated static launch costs a comparison. Caller holds kernel->lock. */
krt_result krt__config_static_for(krt_kernel *k, const krt_ndrange *range, uint32_t local_bytes,
                                  uint32_t local_per_item, const uint32_t group[3], const krt_launch_config **out)
{
    krt__config_key key;
    krt_result r = make_key(range, local_bytes, local_per_item, &key);
    if (r != KRT_SUCCESS)
        return r;
    int memo = !(k->ctx->flags & KRT_CONTEXT_FLAG_NO_MEMO);
    if (memo && k->static_valid && key_equal(&k->static_key, &key) && k->static_group[0] == group[0] &&
        k->static_group[1] == group[1] && k->static_group[2] == group[2]) {
        *out = &k->static_config;
        return KRT_SUCCESS;
    }
    krt_kernel_properties *props;
    if ((r = krt__kernel_properties_locked(k, &props)) != KRT_SUCCESS)
        return r;
    if ((r = private_refused(k)) != KRT_SUCCESS)
        return r;
    krt__config_input in;
    input_fill(k, props, &key, &in);
    k->static_valid = 0;
    if ((r = krt__config_static(&in, group, &k->static_config)) != KRT_SUCCESS)
        return r;
    k->static_valid = 1;
    k->static_key = key;
    memcpy(k->static_group, group, sizeof k->static_group);
    *out = &k->static_config;
    return KRT_SUCCESS;
}

krt_result krt_kernel_set_any_group(krt_kernel *kernel, int any)
{
    if (!kernel)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_set_any_group: kernel is NULL");
    if (any != 0 && any != 1)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_set_any_group: any is %d, not 0 or 1", any);
    pthread_mutex_lock(&kernel->lock);
    /* Taking the word back drops the configurations chosen on it: the lookup checks the kernel on a memo miss
     * only. */
    if (kernel->any_group && !any)
        config_memo_empty(kernel);
    kernel->any_group = any;
    pthread_mutex_unlock(&kernel->lock);
    return KRT_SUCCESS;
}

krt_result krt_launch_config_get(krt_kernel *kernel, const krt_ndrange *range, krt_launch_config *out)
{
    if (!kernel || !range || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_launch_config_get: %s is NULL",
                         !kernel ? "kernel" : !range ? "range" : "out");
    pthread_mutex_lock(&kernel->lock);
    const krt_launch_config *cfg;
    krt_result r = krt__config_lookup(kernel, range, 0, 0, &cfg);
    if (r == KRT_SUCCESS)
        *out = *cfg;
    pthread_mutex_unlock(&kernel->lock);
    return r;
}
