/*
 * tune.c: krt_kernel_tune, which measures candidate groups through the launch path and records the fastest as
 * wisdom (wisdom.c keeps the entries; launch_config.c consults them).
 */
#include "krt_internal.h"
#include "../../common/fnv.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- tuning ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sample is a batch of back-to-back launches and one wait, divided by the batch: how a program that launches
 * a kernel repeatedly sees it, and long enough (about 2 ms) that the wait and the clock's noise do not decide
 * between candidates of a short kernel. */
#define TUNE_BATCH_NS 2e6
#define TUNE_BATCH_MAX 64u
/* The fastest candidates of the sweep (and the rule's choice) are timed again, interleaved, before one is
 * chosen: a candidate timed while the machine was briefly busy is not lost, nor one timed while it was quiet
 * preferred. */
#define TUNE_FINALISTS 4

typedef struct tune_cand {
    uint32_t g[3];
    uint32_t reps; /* launches per sample; 0 = not sized yet */
    double ns;     /* fastest sample so far, per launch */
} tune_cand;

/* Times samples samples of candidate c (sizing its batch first: an untimed launch, as a backend compiles per
 * group size on first use, then one timed launch) and keeps the fastest in c->ns. */
static krt_result time_group(krt_kernel *k, const krt_launch_desc *desc, const krt_tune_desc *t, tune_cand *c,
                             krt_arg *args, uint32_t samples)
{
    krt_launch_desc d = *desc;
    memcpy(d.group, c->g, sizeof d.group);
    /* A static group larger than the range is refused (the launch contract, krt.h), while the rule's own
     * choice may be larger (its stable shapes): that reference is timed as the dynamic launch it is. */
    for (uint32_t i = 0; i < 3; i++)
        if (c->g[i] > 1 && c->g[i] > (desc->range.size[i] ? desc->range.size[i] : 1))
            memset(d.group, 0, sizeof d.group);
    if (t->local_bytes_per_item && desc->num_args) {
        uint64_t items = (uint64_t)c->g[0] * c->g[1] * c->g[2];
        for (uint32_t i = 0; i < desc->num_args; i++)
            if (i < k->refl->num_args && k->args[i].kind == KRT_ARG_LOCAL_POINTER && !args[i].value)
                args[i].size = (size_t)(items * t->local_bytes_per_item);
        d.args = args;
    }
    krt_queue *q = d.queue ? d.queue : k->ctx->default_queue;
    krt_result r;
    if (!c->reps) {
        for (int warm = 0; warm < 2; warm++) {
            uint64_t t0 = now_ns();
            if ((r = krt_launch(k, &d)) != KRT_SUCCESS || (r = krt_queue_synchronize(q)) != KRT_SUCCESS)
                return r;
            double dt = (double)(now_ns() - t0);
            double reps = TUNE_BATCH_NS / (dt > 1e3 ? dt : 1e3);
            c->reps = reps < 1 ? 1 : reps > TUNE_BATCH_MAX ? TUNE_BATCH_MAX : (uint32_t)reps;
        }
        c->ns = INFINITY;
    }
    for (uint32_t s = 0; s < samples; s++) {
        uint64_t t0 = now_ns();
        for (uint32_t i = 0; i < c->reps; i++)
            if ((r = krt_launch(k, &d)) != KRT_SUCCESS)
                return r;
        if ((r = krt_queue_synchronize(q)) != KRT_SUCCESS)
            return r;
        double dt = (double)(now_ns() - t0) / c->reps;
        if (dt < c->ns)
            c->ns = dt;
    }
    return KRT_SUCCESS;
}

static uint32_t pow2_at_least(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 30))
        p <<= 1;
    return p;
}

krt_result krt_kernel_tune(krt_kernel *kernel, const krt_launch_desc *desc, const krt_tune_desc *tune,
                           krt_tune_result *out)
{
    if (!kernel || !desc || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_tune: %s is NULL",
                         !kernel ? "kernel" : !desc ? "desc" : "out");
    if (desc->group[0] || desc->group[1] || desc->group[2])
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_kernel_tune: desc->group is (%u,%u,%u); tuning chooses the group, give none",
                         desc->group[0], desc->group[1], desc->group[2]);
    if (desc->num_args > 64)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_tune: %u arguments (at most 64)", desc->num_args);
    krt_tune_desc t = { 0 };
    if (tune)
        t = *tune;
    if (t.samples > 1000)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_tune: %u samples (at most 1000)", t.samples);
    krt_context *ctx = kernel->ctx;

    /* The rule's choice, before any wisdom of this class: it is a candidate and the reference. */
    krt_launch_config rule;
    krt_result r = krt_launch_config_get(kernel, &desc->range, &rule);
    if (r != KRT_SUCCESS)
        return r;
    krt_tune_result res;
    memset(&res, 0, sizeof res);
    memcpy(res.rule_group, rule.group, sizeof rule.group);
    if (rule.limit == KRT_LIMIT_REQUIRED) {
        memcpy(res.group, rule.group, sizeof rule.group);
        *out = res;
        return KRT_SUCCESS;
    }
    krt_kernel_properties props;
    if ((r = krt_kernel_properties_get(kernel, &props)) != KRT_SUCCESS)
        return r;
    uint32_t bound = props.max_group_size ? props.max_group_size : ctx->info.max_group_size;
    if (bound > ctx->info.max_group_size)
        bound = ctx->info.max_group_size;
    bound = krt__spill_cap(bound, props.spill_mem_size, ctx->spill_budget);

    krt_arg args[64];
    if (desc->num_args)
        memcpy(args, desc->args, desc->num_args * sizeof *args);
    krt_queue *q = desc->queue ? desc->queue : ctx->default_queue;
    if ((r = krt_queue_synchronize(q)) != KRT_SUCCESS)
        return r;

    uint32_t dims = rule.dims, lim[3];
    for (uint32_t d = 0; d < 3; d++) {
        lim[d] = d < dims ? pow2_at_least(desc->range.size[d]) : 1;
        if (lim[d] > ctx->info.max_group[d])
            lim[d] = ctx->info.max_group[d];
    }
    const uint32_t *rg = rule.group;
    uint32_t samples = t.samples ? t.samples : 3;
    /* fin[0] is the rule's choice, fin[1..] the fastest other candidates so far, fastest first. */
    tune_cand fin[1 + TUNE_FINALISTS];
    uint32_t nfin = 1;
    memset(fin, 0, sizeof fin);
    memcpy(fin[0].g, rg, sizeof fin[0].g);
    if ((r = time_group(kernel, desc, &t, &fin[0], args, samples)) != KRT_SUCCESS)
        return r;
    res.candidates = 1;
    for (uint32_t z = 1; z <= lim[2]; z <<= 1)
        for (uint32_t y = 1; y <= lim[1]; y <<= 1)
            for (uint32_t x = 1; x <= lim[0]; x <<= 1) {
                uint64_t items = (uint64_t)x * y * z;
                if (items > bound || (x == rg[0] && y == rg[1] && z == rg[2]))
                    continue;
                /* A group larger than the range in a dimension is refused by the launch (the launch contract,
                 * krt.h), so it is not a candidate either. */
                if (x > desc->range.size[0] || (dims > 1 && y > desc->range.size[1]) ||
                    (dims > 2 && z > desc->range.size[2]))
                    continue;
                /* A group whose __local arguments would not fit the device is not a candidate. */
                uint64_t local = props.local_mem_size;
                if (t.local_bytes_per_item)
                    local += items * t.local_bytes_per_item * kernel->refl->local_args;
                if (ctx->info.max_shared_local_memory && local > ctx->info.max_shared_local_memory)
                    continue;
                tune_cand c = { .g = { x, y, z } };
                if ((r = time_group(kernel, desc, &t, &c, args, samples)) != KRT_SUCCESS)
                    return r;
                res.candidates++;
                /* Insert into the finalists, kept sorted fastest first. */
                uint32_t at = nfin;
                while (at > 1 && c.ns < fin[at - 1].ns)
                    at--;
                if (at > TUNE_FINALISTS)
                    continue;
                uint32_t last = nfin < 1 + TUNE_FINALISTS ? nfin : TUNE_FINALISTS;
                memmove(&fin[at + 1], &fin[at], (last - at) * sizeof fin[0]);
                fin[at] = c;
                if (nfin < 1 + TUNE_FINALISTS)
                    nfin++;
            }
    /* The final: every finalist timed again, interleaved, samples rounds; the fastest over all its samples wins
     * (the rule's choice keeps its place when nothing is faster). */
    for (uint32_t round = 0; round < samples && nfin > 1; round++)
        for (uint32_t i = 0; i < nfin; i++)
            if ((r = time_group(kernel, desc, &t, &fin[i], args, 1)) != KRT_SUCCESS)
                return r;
    uint32_t win = 0;
    for (uint32_t i = 1; i < nfin; i++)
        if (fin[i].ns < fin[win].ns)
            win = i;
    double best = fin[win].ns;
    memcpy(res.group, fin[win].g, sizeof res.group);
    res.rule_ns = fin[0].ns;
    res.best_ns = best;

    uint32_t cls[3];
    r = krt__wisdom_record(kernel, dims, desc->range.size, res.group, best, cls);
    if (r != KRT_SUCCESS)
        return r;
    krt__logf(&ctx->log, KRT_LOG_INFO, "tuned %s over class %ux%ux%u: group %ux%ux%u, %.0f ns (rule %ux%ux%u, %.0f ns), "
              "%u candidates", kernel->refl->name, cls[0], cls[1], cls[2], res.group[0], res.group[1],
              res.group[2], best, rg[0], rg[1], rg[2], res.rule_ns, res.candidates);
    *out = res;
    return KRT_SUCCESS;
}
