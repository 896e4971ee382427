/*
 * launch.c: the launch path, top to bottom. Under the kernel's lock: either the warm check (the arguments are
 * byte-identical to those of the last fully checked launch and nothing was freed since) or the check of every
 * argument against the reflected signature; the events; the memoized configuration (or the check of the
 * static group size); then, unless warm, the arguments, set only where the value changed; the group size,
 * only if it changed; then the append to the queue's immediate list.
 * A warm launch makes no property or extension query and no heap allocation; with unchanged arguments its
 * only driver call is the append.
 */
#include "krt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "argument 2 (x) of saxpy" for messages; the name is left out when the module carries none. */
static void arg_label(const krt_kernel *k, uint32_t i, char *buf, size_t size)
{
    const char *name = k->args[i].name;
    if (name && name[0])
        snprintf(buf, size, "argument %u (%s) of %s", i, name, k->refl->name);
    else
        snprintf(buf, size, "argument %u of %s", i, k->refl->name);
}

/* A pointer argument into device memory of another device that the kernel's device cannot reach. */
static krt_result far_pointer(const krt_kernel *k, uint32_t i, const void *p, ze_device_handle_t far)
{
    char label[160];
    arg_label(k, i, label, sizeof label);
    krt__device_entry *e = NULL;
    const char *name = krt__device_entry_get(far, &e) == KRT_SUCCESS ? e->props.name : "another device";
    return krt__fail(KRT_ERROR_INVALID_POINTER,
                     "%s = %p is device memory of %s, which the kernel's device, %s, cannot reach "
                     "(krt_context_can_access_peer): copy it over with krt_memcpy first",
                     label, p, name, k->ctx->info.name);
}

static const char *const arg_type_names[] = { "untyped",  "int8_t",  "uint8_t",  "int16_t", "uint16_t",
                                              "int32_t",  "uint32_t", "int64_t", "uint64_t", "float",
                                              "double",   "pointer",  "__local bytes per work-item" };
_Static_assert(sizeof arg_type_names / sizeof arg_type_names[0] == KRT_ARG_TYPE_LOCAL_PER_ITEM + 1,
               "one name per krt_arg_type");

const char *krt_arg_type_name(krt_arg_type type)
{
    return (unsigned)type < sizeof arg_type_names / sizeof arg_type_names[0] ? arg_type_names[type] : "unknown";
}

/* The reflected scalar type each typed C scalar matches (KRT_TYPE_NONE for pointers and untyped). */
static const krt_scalar_type arg_type_scalar[] = {
    KRT_TYPE_NONE,  KRT_TYPE_INT8,  KRT_TYPE_INT8,  KRT_TYPE_INT16,   KRT_TYPE_INT16,   KRT_TYPE_INT32,
    KRT_TYPE_INT32, KRT_TYPE_INT64, KRT_TYPE_INT64, KRT_TYPE_FLOAT32, KRT_TYPE_FLOAT64, KRT_TYPE_NONE,
    KRT_TYPE_NONE,
};
_Static_assert(sizeof arg_type_scalar / sizeof arg_type_scalar[0] == KRT_ARG_TYPE_LOCAL_PER_ITEM + 1,
               "one scalar type per krt_arg_type");

/* Whether a typed argument's C type is the reflected one. Integers match by width: SPIR-V carries no sign. */
static int type_matches(const krt_arg_info *info, krt_arg_type t)
{
    if (t == KRT_ARG_TYPE_POINTER)
        return info->kind == KRT_ARG_GLOBAL_POINTER || info->kind == KRT_ARG_CONSTANT_POINTER;
    return info->kind == KRT_ARG_SCALAR && info->vector_width == 1 && info->type == arg_type_scalar[t];
}

/* The reflected type in the words of OpenCL C: "float", "double", "a 32-bit integer (int or uint)", "float4",
 * "a global pointer", "a struct of 12 bytes". */
static void describe_reflected(const krt_arg_info *info, char *buf, size_t size)
{
    static const char *const cl_names[] = { "", "char", "short", "int", "long", "half", "float", "double", "bool" };
    switch (info->kind) {
    case KRT_ARG_SCALAR:
        if ((unsigned)info->type >= sizeof cl_names / sizeof cl_names[0] || info->type == KRT_TYPE_NONE)
            snprintf(buf, size, "a scalar of %u bytes", info->size);
        else if (info->vector_width > 1)
            snprintf(buf, size, "%s%u", cl_names[info->type], info->vector_width);
        else if (info->type >= KRT_TYPE_INT8 && info->type <= KRT_TYPE_INT64)
            snprintf(buf, size, "a%s %u-bit integer (%s or u%s)", info->size == 1 ? "n" : "", info->size * 8,
                     cl_names[info->type], cl_names[info->type]);
        else
            snprintf(buf, size, "%s", cl_names[info->type]);
        return;
    case KRT_ARG_STRUCT:
        snprintf(buf, size, "a struct of %u bytes", info->size);
        return;
    default:
        snprintf(buf, size, "a %s", krt_arg_kind_name(info->kind));
        return;
    }
}

/* The message of a typed argument whose C type is not the reflected one. Out of line and cold: it formats,
 * and the launch path that inlines check_arg should not pay for it. */
__attribute__((cold, noinline)) static krt_result type_mismatch(const krt_kernel *k, uint32_t i, const krt_arg *a)
{
    const krt_arg_info *info = &k->args[i];
    char label[160], what[64];
    const char *c = krt_arg_type_name(a->type);
    arg_label(k, i, label, sizeof label);
    describe_reflected(info, what, sizeof what);
    int untyped_only = info->kind == KRT_ARG_STRUCT ||
                       (info->kind == KRT_ARG_SCALAR && (info->vector_width > 1 || info->type == KRT_TYPE_FLOAT16 ||
                                                         info->type == KRT_TYPE_BOOL || info->type == KRT_TYPE_NONE));
    return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT, "%s is %s but a%s %s was passed%s", label, what,
                     c[0] == 'i' ? "n" : "", c,
                     untyped_only ? " (no C type matches it: pass its bytes untyped, { .value, .size })" : "");
}

/* Checks argument i against its reflected kind, C type (when typed) and size, without touching the driver. */
static krt_result check_arg(const krt_kernel *k, uint32_t i, const krt_arg *a)
{
    const krt_arg_info *info = &k->args[i];
    char label[160];
    switch (info->kind) {
    case KRT_ARG_LOCAL_POINTER:
        if (a->value != NULL || a->size == 0 || (a->type != KRT_ARG_TYPE_NONE && a->type != KRT_ARG_TYPE_LOCAL_PER_ITEM)) {
            arg_label(k, i, label, sizeof label);
            return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                             "%s is a __local pointer: pass KRT_ARG_LOCAL(bytes per group) or "
                             "KRT_ARG_LOCAL_PER_ITEM(bytes per work-item) with bytes > 0 (got value %p, size %zu, "
                             "type %s)",
                             label, a->value, a->size, krt_arg_type_name(a->type));
        }
        return KRT_SUCCESS;
    case KRT_ARG_OTHER:
        arg_label(k, i, label, sizeof label);
        return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT, "%s has a type krt_launch does not support", label);
    default:
        if (a->value == NULL) {
            arg_label(k, i, label, sizeof label);
            return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                             "%s is a %s but was passed as a __local size (value NULL)", label,
                             krt_arg_kind_name(info->kind));
        }
        if (a->type != KRT_ARG_TYPE_NONE) {
            if ((unsigned)a->type > KRT_ARG_TYPE_LOCAL_PER_ITEM) {
                arg_label(k, i, label, sizeof label);
                return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                                 "%s was passed with type tag %u, which is not a krt_arg_type", label,
                                 (unsigned)a->type);
            }
            if (!type_matches(info, a->type))
                return type_mismatch(k, i, a);
        }
        if (a->size != info->size) {
            arg_label(k, i, label, sizeof label);
            return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT, "%s is a %s of %u bytes, but %zu bytes were passed",
                             label, krt_arg_kind_name(info->kind), info->size, a->size);
        }
        return KRT_SUCCESS;
    }
}

/* Equality of an argument's bytes with its slot; pointers and 32-bit scalars (most arguments) compare as one
 * word instead of a memcmp call. */
static inline int same_bytes(const void *a, const void *b, size_t size)
{
    if (size == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    if (size == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    return memcmp(a, b, size) == 0;
}

/* Sets argument i if its value differs from what the driver holds. Pointers are checked with the driver
 * only when their value changed or memory was freed since they were checked. */
static krt_result set_arg(krt_kernel *k, uint32_t i, const krt_arg *a, int force)
{
    const krt_arg_info *info = &k->args[i];
    krt__arg_slot *slot = &k->slots[i];
    int is_ptr = info->kind == KRT_ARG_GLOBAL_POINTER || info->kind == KRT_ARG_CONSTANT_POINTER;
    if (info->kind == KRT_ARG_LOCAL_POINTER) {
        if (!force && slot->is_set && slot->size == a->size)
            return KRT_SUCCESS;
        ze_result_t zr = KRT__ZE(k->ctx->ddi, Kernel, SetArgumentValue)(k->ze, i, a->size, NULL);
        if (zr == ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE) {
            /* krt's own check (the kernel's local memory plus its local arguments within the device's) passed, so
             * the driver counts more local memory than the kernel reports (ze_pocl: what PoCL gives the kernel,
             * every __local variable of its module). */
            char label[160];
            arg_label(k, i, label, sizeof label);
            slot->is_set = 0;
            return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                             "%s: the driver refused %zu bytes of __local memory (%s): with the local memory it gives "
                             "the kernel, more than the device's %u bytes (on ze_pocl a kernel gets every __local "
                             "variable of its module)",
                             label, a->size, krt__ze_name(zr), k->ctx->dev->compute.maxSharedLocalMemory);
        }
        krt_result r = krt__ze(zr, "zeKernelSetArgumentValue");
        if (r != KRT_SUCCESS)
            return r;
        slot->size = a->size;
        slot->is_set = 1;
        return KRT_SUCCESS;
    }
    int same = slot->is_set && slot->size == a->size && same_bytes(slot->value, a->value, a->size);
    if (is_ptr) {
        uint64_t gen = atomic_load_explicit(&k->ctx->free_generation, memory_order_acquire);
        if (!same || slot->generation != gen) {
            void *p;
            memcpy(&p, a->value, sizeof p);
            ze_device_handle_t far = NULL;
            if (p != NULL && !krt__pointer_known(k->ctx, p, &far)) {
                char label[160];
                arg_label(k, i, label, sizeof label);
                return krt__fail(KRT_ERROR_INVALID_POINTER,
                                 "%s = %p is not an allocation known to the driver (freed, or not from krt_alloc)",
                                 label, p);
            }
            if (far)
                return far_pointer(k, i, p, far);
            slot->generation = gen;
        }
    }
    if (same && !force)
        return KRT_SUCCESS;
    krt_result r = krt__ze(KRT__ZE(k->ctx->ddi, Kernel, SetArgumentValue)(k->ze, i, a->size, a->value), "zeKernelSetArgumentValue");
    if (r != KRT_SUCCESS) {
        slot->is_set = 0;
        return r;
    }
    memcpy(slot->value, a->value, a->size);
    slot->size = a->size;
    slot->is_set = 1;
    return KRT_SUCCESS;
}

/* The launch's __local argument bytes: per group (KRT_ARG_LOCAL) and per work-item (KRT_ARG_LOCAL_PER_ITEM). */
static void local_bytes_of(const krt_kernel *k, const krt_launch_desc *d, uint32_t *per_group, uint32_t *per_item)
{
    uint64_t group = 0, item = 0;
    for (uint32_t i = 0; i < d->num_args; i++)
        if (k->args[i].kind == KRT_ARG_LOCAL_POINTER && d->args[i].value == NULL) {
            if (d->args[i].type == KRT_ARG_TYPE_LOCAL_PER_ITEM)
                item += d->args[i].size;
            else
                group += d->args[i].size;
        }
    *per_group = group > UINT32_MAX ? UINT32_MAX : (uint32_t)group;
    *per_item = item > UINT32_MAX ? UINT32_MAX : (uint32_t)item;
}

/* Sets the __local arguments sized per work-item for the group of cfg (items * bytes), each only if its size
 * changed: the group differs from one range to the next, so this runs on warm launches too. */
static krt_result set_local_per_item(krt_kernel *k, const krt_launch_desc *d, const krt_launch_config *cfg, int force)
{
    uint64_t items = (uint64_t)cfg->group[0] * cfg->group[1] * cfg->group[2];
    for (uint32_t i = 0; i < d->num_args; i++) {
        if (d->args[i].type != KRT_ARG_TYPE_LOCAL_PER_ITEM || k->args[i].kind != KRT_ARG_LOCAL_POINTER)
            continue;
        krt_arg a = d->args[i];
        a.size = (size_t)(items * a.size);
        krt_result r = set_arg(k, i, &a, force);
        if (r != KRT_SUCCESS)
            return r;
    }
    return KRT_SUCCESS;
}

static void trace_launch(const krt_kernel *k, const krt_launch_config *c, const krt_ndrange *range)
{
    char rs[80], gs[48], ns[48];
    unsigned long long s0 = (unsigned long long)range->size[0], s1 = (unsigned long long)range->size[1],
                       s2 = (unsigned long long)range->size[2];
    if (c->dims == 1) {
        snprintf(rs, sizeof rs, "%llu", s0);
        snprintf(gs, sizeof gs, "%u", c->group[0]);
        snprintf(ns, sizeof ns, "%u", c->groups[0]);
    } else if (c->dims == 2) {
        snprintf(rs, sizeof rs, "%llux%llu", s0, s1);
        snprintf(gs, sizeof gs, "%ux%u", c->group[0], c->group[1]);
        snprintf(ns, sizeof ns, "%ux%u", c->groups[0], c->groups[1]);
    } else {
        snprintf(rs, sizeof rs, "%llux%llux%llu", s0, s1, s2);
        snprintf(gs, sizeof gs, "%ux%ux%u", c->group[0], c->group[1], c->group[2]);
        snprintf(ns, sizeof ns, "%ux%ux%u", c->groups[0], c->groups[1], c->groups[2]);
    }
    krt__logf(&k->ctx->log, KRT_LOG_TRACE,
              "launch %s range %s group %s groups %s (limit: %s; max %u, multiple %u, spill %u B/item%s)",
              k->refl->name, rs, gs, ns, krt_limit_name(c->limit), c->max_group_size, c->preferred_multiple,
              c->spill_mem_size, c->masked ? ", partial last group" : "");
}

/* The warm-launch record: whether the caller's arguments are byte-identical to those of the kernel's last
 * launch whose arguments were all checked and set. Each argument costs a size comparison and, for a by-value
 * argument, one word comparison (pointers and 32-bit scalars) or a memcmp with its slot (larger values). A
 * match proves that check_arg would accept every argument (same sizes, same NULL-ness of each value) and that
 * set_arg would set none of them; the caller adds the free-generation comparison for pointers.
 * Caller holds k->lock. */
static int warm_match(const krt_kernel *k, const krt_arg *args, uint32_t n)
{
    /* Walked with pointers and tested in the order of frequency (pointers, 32-bit scalars, __local, the rest):
     * this loop is most of a warm launch's cost per argument. */
    const krt__warm_arg *w = k->warm;
    const krt_arg *end = args + n;
    for (const krt_arg *a = args; a != end; a++, w++) {
        if (a->size != w->size || a->type != w->type)
            return 0;
        const void *v = a->value;
        if (w->mode == KRT__WARM_WORD8) {
            uint64_t x;
            if (v == NULL)
                return 0;
            memcpy(&x, v, 8);
            if (x != w->word)
                return 0;
        } else if (w->mode == KRT__WARM_WORD4) {
            uint32_t x;
            if (v == NULL)
                return 0;
            memcpy(&x, v, 4);
            if (x != (uint32_t)w->word)
                return 0;
        } else if (w->mode == KRT__WARM_LOCAL) {
            if (v != NULL)
                return 0;
        } else if (v == NULL || memcmp(v, k->slots[a - args].value, a->size) != 0) {
            return 0;
        }
    }
    return 1;
}

/* Records the arguments the driver now holds, after every argument was checked and set. The bytes come from
 * the slots (equal to the caller's after set_arg), so the caller's memory is read once per launch. generation
 * is the free generation read before the pointers were checked. Caller holds k->lock. */
static void warm_record(krt_kernel *k, const krt_arg *args, uint32_t n, uint32_t local_bytes,
                        uint32_t local_per_item, uint64_t generation)
{
    krt__warm_arg *w = k->warm;
    for (uint32_t i = 0; i < n; i++) {
        w[i].size = args[i].size;
        w[i].type = args[i].type;
        if (w[i].mode == KRT__WARM_WORD8) {
            memcpy(&w[i].word, k->slots[i].value, 8);
        } else if (w[i].mode == KRT__WARM_WORD4) {
            uint32_t x;
            memcpy(&x, k->slots[i].value, 4);
            w[i].word = x;
        }
    }
    k->warm_local_bytes = local_bytes;
    k->warm_local_per_item = local_per_item;
    k->warm_generation = generation;
    k->warm_valid = 1;
}

/* wait[i] (i < num_wait) when it is not of ctx: KRT_SUCCESS for an event of a context sharing ctx's Level Zero
 * context, else the refusal; i == num_wait: the signal event's refusal. */
__attribute__((cold, noinline)) static krt_result events_refused(krt_context *ctx, const krt_launch_desc *d,
                                                                 uint32_t i)
{
    if (i < d->num_wait && d->wait[i] && d->wait[i]->ctx->ze == ctx->ze)
        return KRT_SUCCESS;
    if (i < d->num_wait)
        return krt__events_check(ctx, "krt_launch", d->wait, d->num_wait, NULL);
    return krt__events_check(ctx, "krt_launch", NULL, 0, d->signal);
}

krt_result krt__launch(krt_kernel *k, const krt_launch_desc *d)
{
    krt_context *ctx = k->ctx;
    krt_queue *q = d->queue ? d->queue : ctx->default_queue;
    if (q->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_launch: the queue belongs to another context");
    if (d->num_args != k->refl->num_args)
        return krt__fail(KRT_ERROR_INVALID_KERNEL_ARGUMENT, "%s takes %u arguments, but %u were passed",
                         k->refl->name, k->refl->num_args, d->num_args);

    int nomemo = (ctx->flags & KRT_CONTEXT_FLAG_NO_MEMO) != 0;
    int is_static = d->group[0] || d->group[1] || d->group[2];
    const krt_launch_config *cfg = NULL;
    krt_result r = KRT_SUCCESS;
    uint32_t local_bytes, local_per_item;
    ze_event_handle_t wait_stack[16];
    ze_event_handle_t *wait = wait_stack;

    /* The kernel's lock is taken before the argument checks because the warm record they consult is kernel
     * state; the checks keep their order (arguments, then wait events, then the signal event). */
    pthread_mutex_lock(&k->lock);
    /* Warm path: the same argument sizes and bytes as the last launch that set them all, and no krt_free since
     * its pointers were checked. Nothing per argument is checked or set again; the outcome is the one the full
     * checks below would give. (KRT_CONTEXT_FLAG_NO_MEMO never records, so warm_valid is 0 there.) */
    int warm = k->warm_valid &&
               atomic_load_explicit(&ctx->free_generation, memory_order_acquire) == k->warm_generation &&
               warm_match(k, d->args, d->num_args);
    if (warm) {
        local_bytes = k->warm_local_bytes;
        local_per_item = k->warm_local_per_item;
    } else {
        for (uint32_t i = 0; i < d->num_args; i++)
            if ((r = check_arg(k, i, &d->args[i])) != KRT_SUCCESS)
                goto out;
        local_bytes_of(k, d, &local_bytes, &local_per_item);
    }

    /* Wait events as driver handles; a launch waiting on more than the stack holds is rare enough to pay. */
    if (d->num_wait > 16) {
        wait = malloc(d->num_wait * sizeof *wait);
        if (!wait) {
            wait = wait_stack;
            r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %u wait events", d->num_wait);
            goto out;
        }
    }
    /* An event of another context sharing this one's Level Zero context (another device's) may be waited on:
     * events_refused says which may not, out of the way of the common case. */
    for (uint32_t i = 0; i < d->num_wait; i++) {
        if (!d->wait[i] || d->wait[i]->ctx != ctx) {
            if ((r = events_refused(ctx, d, i)) != KRT_SUCCESS)
                goto out;
        }
        wait[i] = d->wait[i]->ze;
    }
    if (d->signal && d->signal->ctx != ctx) {
        r = events_refused(ctx, d, d->num_wait);
        goto out;
    }

    /* 1. The configuration: memoized per (ndrange, local bytes), or the caller's static size, checked. */
    if (is_static) {
        r = krt__config_static_for(k, &d->range, local_bytes, local_per_item, d->group, &cfg);
    } else {
        r = krt__config_lookup(k, &d->range, local_bytes, local_per_item, &cfg);
    }
    if (r != KRT_SUCCESS)
        goto out;

    /* 2. Arguments: set only those that changed. The record is dropped first: a failure part-way leaves the
     * driver holding a mix of old and new values, which no record describes. __local arguments sized per
     * work-item follow the group, warm or not. */
    if (!warm) {
        k->warm_valid = 0;
        uint64_t gen = atomic_load_explicit(&ctx->free_generation, memory_order_acquire);
        for (uint32_t i = 0; i < d->num_args; i++)
            if (d->args[i].type != KRT_ARG_TYPE_LOCAL_PER_ITEM && (r = set_arg(k, i, &d->args[i], nomemo)) != KRT_SUCCESS)
                goto out;
        if (local_per_item && (r = set_local_per_item(k, d, cfg, nomemo)) != KRT_SUCCESS)
            goto out;
        if (!nomemo)
            warm_record(k, d->args, d->num_args, local_bytes, local_per_item, gen);
    } else if (local_per_item && (r = set_local_per_item(k, d, cfg, 0)) != KRT_SUCCESS) {
        k->warm_valid = 0;
        goto out;
    }

    /* 3. The group size, only if it changed. */
    if (nomemo || cfg->group[0] != k->group_set[0] || cfg->group[1] != k->group_set[1] ||
        cfg->group[2] != k->group_set[2]) {
        r = krt__ze(KRT__ZE(k->ctx->ddi, Kernel, SetGroupSize)(k->ze, cfg->group[0], cfg->group[1], cfg->group[2]), "zeKernelSetGroupSize");
        if (r != KRT_SUCCESS) {
            k->group_set[0] = 0;
            goto out;
        }
        memcpy(k->group_set, cfg->group, sizeof k->group_set);
    }

    /* 3b. The true range (ZE_krt_exact_range), only if it changed: the driver runs exactly the range's items,
     * whatever the group, with OpenCL 2.0's partial groups (docs/design.md, "Exact ranges"). */
    if (ctx->drv->has_exact_range_ext) {
        uint64_t want[3] = { d->range.size[0], cfg->dims > 1 ? d->range.size[1] : 1,
                             cfg->dims > 2 ? d->range.size[2] : 1 };
        if (nomemo || want[0] != k->exact_set[0] || want[1] != k->exact_set[1] || want[2] != k->exact_set[2]) {
            r = krt__ze(KRT__ZE(k->ctx->ddi, Kernel, SetArgumentValue)(k->ze, k->refl->num_args, sizeof want, want),
                        "zeKernelSetArgumentValue (the true range)");
            if (r != KRT_SUCCESS) {
                k->exact_set[0] = 0;
                goto out;
            }
            memcpy(k->exact_set, want, sizeof want);
        }
    }

    /* 4. The append, under the queue's lock: commands enter the queue in the order the lock was taken. */
    ze_group_count_t count = { cfg->groups[0], cfg->groups[1], cfg->groups[2] };
    pthread_mutex_lock(&q->lock);
    ze_result_t zr = KRT__ZE(q->ctx->ddi, CommandList, AppendLaunchKernel)(krt__queue_target(q), k->ze, &count, d->signal ? d->signal->ze : NULL,
                                                     d->num_wait, d->num_wait ? wait : NULL);
    q->appended++;
    /* What is in flight, for a fault's message (fault.c): on the queue, or in the recording a replay will run. */
    if (zr == ZE_RESULT_SUCCESS)
        krt__inflight_push(q->rec ? &q->rec->inflight : &q->inflight, k);
    if (q->rec && zr == ZE_RESULT_SUCCESS)
        krt__queue_count(q, KRT__REC_LAUNCH);
    pthread_mutex_unlock(&q->lock);
    r = krt__ze(zr, "zeCommandListAppendLaunchKernel");
    if (r == KRT_SUCCESS && ctx->checks)
        krt__checks_note(k, d);
    if (r == KRT_SUCCESS && ctx->trace)
        trace_launch(k, cfg, &d->range);
out:
    pthread_mutex_unlock(&k->lock);
    if (wait != wait_stack)
        free(wait);
    /* The device was lost: the context's loss, told outside the kernel's lock (fault.c takes no lock of the context
     * with a queue, but the message is written once for every caller). */
    if (r == KRT_ERROR_DEVICE_LOST)
        r = krt__lost(ctx, q, "zeCommandListAppendLaunchKernel");
    return r;
}

krt_result krt_launch(krt_kernel *kernel, const krt_launch_desc *desc)
{
    if (!kernel || !desc)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_launch: %s is NULL", kernel ? "desc" : "kernel");
    if (desc->num_args > 0 && !desc->args)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_launch: args is NULL with num_args %u", desc->num_args);
    if (desc->num_wait > 0 && !desc->wait)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_launch: wait is NULL with num_wait %u", desc->num_wait);
    /* A lost context launches nothing: one load on the launch path (fault.c). */
    if (krt__is_lost(kernel->ctx))
        return krt__lost_again(kernel->ctx);
    return krt__launch(kernel, desc);
}

krt_result krt_launch_sync(krt_kernel *kernel, const krt_launch_desc *desc)
{
    krt_result r = krt_launch(kernel, desc);
    if (r != KRT_SUCCESS)
        return r;
    krt_queue *q = desc->queue ? desc->queue : kernel->ctx->default_queue;
    return krt__queue_sync(q);
}
