/*
 * kernel.c: kernels by name, memoized per module, each made in one allocation that holds its argument slots,
 * and the kernel's driver properties, queried once through a pNext chain built in a scoped arena.
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_private_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

krt_result krt__kernel_create(krt_module *module, uint32_t index, krt_kernel **out)
{
    const krt_spv_kernel *kr = &module->refl.kernels[index];
    /* The kernel, its slots, its warm-launch record and the bytes each slot keeps, in one block: a launch never
     * allocates. */
    size_t head = align_up(sizeof(krt_kernel), 16);
    size_t slots = align_up(kr->num_args * sizeof(krt__arg_slot), 16);
    size_t warm = align_up(kr->num_args * sizeof(krt__warm_arg), 16);
    size_t storage = 0;
    const krt_arg_info *args = krt__module_args(module, kr);
    for (uint32_t i = 0; i < kr->num_args; i++)
        storage += align_up(args[i].size ? args[i].size : 1, 16);
    unsigned char *block = calloc(1, head + slots + warm + storage);
    if (!block)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for kernel %s", kr->name);
    krt_kernel *k = (krt_kernel *)block;
    k->module = module;
    k->ctx = module->ctx;
    k->refl = kr;
    k->args = args;
    k->index = index;
    k->slots = (krt__arg_slot *)(block + head);
    k->warm = (krt__warm_arg *)(block + head + slots);
    unsigned char *value = block + head + slots + warm;
    for (uint32_t i = 0; i < kr->num_args; i++) {
        const krt_arg_info *a = &args[i];
        k->warm[i].mode = a->kind == KRT_ARG_LOCAL_POINTER ? KRT__WARM_LOCAL
                          : a->size == 8                   ? KRT__WARM_WORD8
                          : a->size == 4                   ? KRT__WARM_WORD4
                                                           : KRT__WARM_BYTES;
        k->slots[i].value = value;
        value += align_up(args[i].size ? args[i].size : 1, 16);
    }
    ze_kernel_desc_t kd = { .stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = kr->name };
    ze_result_t zr = KRT__ZE(module->ctx->ddi, Kernel, Create)(module->ze, &kd, &k->ze);
    if (zr == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && module->ctx->host) {
        /* The host device passes every argument with a layout to a library of native ABI 4 (its runner reads each
         * with its C type); an older library's kernels are called through libffi, which has no half, vector or
         * struct type. */
        for (uint32_t i = 0; i < kr->num_args; i++) {
            const krt_arg_info *a = &args[i];
            if (a->kind == KRT_ARG_GLOBAL_POINTER || a->kind == KRT_ARG_CONSTANT_POINTER ||
                a->kind == KRT_ARG_LOCAL_POINTER ||
                (a->kind == KRT_ARG_SCALAR && a->vector_width == 1 && a->type != KRT_TYPE_FLOAT16))
                continue;
            free(block);
            if (a->kind == KRT_ARG_OTHER)
                return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                                 "kernel %s, argument %u (%s): the host device passes no argument of this type (an "
                                 "image, a sampler, or a type without a layout)",
                                 kr->name, i, a->name[0] ? a->name : "unnamed");
            return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                             "kernel %s, argument %u (%s): a %s%s, which the host device passes to kernel libraries "
                             "of native ABI 4 only: this one is older (pointers and scalars, not half); rebuild it "
                             "with this krt's krt-cc --host",
                             kr->name, i, a->name[0] ? a->name : "unnamed",
                             a->kind == KRT_ARG_SCALAR && a->vector_width > 1 ? "vector of " : "",
                             a->kind == KRT_ARG_SCALAR ? krt_scalar_type_name(a->type) : krt_arg_kind_name(a->kind));
        }
    }
    krt_result r = krt__ze(zr, "zeKernelCreate");
    if (r != KRT_SUCCESS) {
        free(block);
        return r;
    }
    pthread_mutex_init(&k->lock, NULL);
    *out = k;
    return KRT_SUCCESS;
}

/* "a, b, c" of the module's kernel names, for messages. */
static void list_names(const krt_module *module, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < module->refl.num_kernels && used + 1 < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", module->refl.kernel_names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

krt_result krt__kernel_not_found(const krt_module *module, const char *name)
{
    char names[1024];
    list_names(module, names, sizeof names);
    return krt__fail(KRT_ERROR_KERNEL_NOT_FOUND, "no kernel \"%s\" in the module; its kernels: %s", name, names);
}

int krt__group_dependent(const krt_spv_kernel *kr)
{
    return kr->uses_barrier && kr->uses_static_local && !kr->required_group[0] && !kr->any_group;
}

void krt__kernel_info_fill(const krt_spv_kernel *kr, krt_kernel_info *out)
{
    out->name = kr->name;
    out->num_args = kr->num_args;
    memcpy(out->required_group, kr->required_group, sizeof out->required_group);
    memcpy(out->group_hint, kr->group_hint, sizeof out->group_hint);
    out->uses_barrier = kr->uses_barrier;
    out->uses_static_local = kr->uses_static_local;
    out->local_args = kr->local_args;
    out->local_vars = kr->local_vars;
    out->any_group = kr->any_group;
    out->group_dependent = krt__group_dependent(kr);
}

void krt__kernel_destroy(krt_kernel *k)
{
    if (!k)
        return;
    KRT__ZE(k->ctx->ddi, Kernel, Destroy)(k->ze);
    free(k->configs); /* the launch-configuration memo (launch_config.c) */
    pthread_mutex_destroy(&k->lock);
    free(k);
}

krt_result krt_kernel_get(krt_module *module, const char *name, krt_kernel **out)
{
    if (!module || !name || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_get: %s is NULL",
                         !module ? "module" : !name ? "name" : "out");
    uint32_t index;
    if (!krt_spv_reflection_find(&module->refl, name, &index))
        return krt__kernel_not_found(module, name);
    krt_result r = KRT_SUCCESS;
    pthread_mutex_lock(&module->lock);
    if (!module->kernels[index])
        r = krt__kernel_create(module, index, &module->kernels[index]);
    if (r == KRT_SUCCESS)
        *out = module->kernels[index];
    pthread_mutex_unlock(&module->lock);
    return r;
}

krt_result krt__kernel_query_properties(krt_kernel *k, int has_max_ext, krt_kernel_properties *out)
{
    /* The chain ze_kernel_properties_t -> preferred group size -> max group size (only when the driver
     * advertises the extension) lives in this arena for the whole call: the driver reaches the structs only
     * through pNext, so none of them may be a temporary that ends before zeKernelGetProperties returns. */
    _Alignas(16) unsigned char buffer[512];
    krt__arena arena;
    krt__arena_init(&arena, buffer, sizeof buffer);
    ze_kernel_properties_t *kp = krt__arena_alloc(&arena, sizeof *kp, _Alignof(ze_kernel_properties_t));
    ze_kernel_preferred_group_size_properties_t *pref =
        krt__arena_alloc(&arena, sizeof *pref, _Alignof(ze_kernel_preferred_group_size_properties_t));
    ze_kernel_max_group_size_properties_ext_t *maxp = NULL;
    if (has_max_ext)
        maxp = krt__arena_alloc(&arena, sizeof *maxp, _Alignof(ze_kernel_max_group_size_properties_ext_t));
    /* A krt driver's private memory and its limit (ZE_krt_private_memory), last in the chain. */
    ze_krt_kernel_private_memory_properties_t *pm = NULL;
    if (k->ctx->drv->has_private_memory_ext)
        pm = krt__arena_alloc(&arena, sizeof *pm, _Alignof(ze_krt_kernel_private_memory_properties_t));
    if (!kp || !pref || (has_max_ext && !maxp) || (k->ctx->drv->has_private_memory_ext && !pm)) {
        krt__arena_release(&arena);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "property chain does not fit its arena");
    }
    kp->stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    kp->pNext = pref;
    pref->stype = ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES;
    void **tail = &pref->pNext;
    if (maxp) {
        *tail = maxp;
        maxp->stype = ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES;
        tail = &maxp->pNext;
    }
    if (pm) {
        *tail = pm;
        pm->stype = ZE_STRUCTURE_TYPE_KRT_KERNEL_PRIVATE_MEMORY_PROPERTIES;
    }
    krt_result r = krt__ze(KRT__ZE(k->ctx->ddi, Kernel, GetProperties)(k->ze, kp), "zeKernelGetProperties");
    if (r == KRT_SUCCESS) {
        const ze_device_compute_properties_t *c = &k->ctx->dev->compute;
        memset(out, 0, sizeof *out);
        out->num_args = kp->numKernelArgs;
        out->required_group[0] = kp->requiredGroupSizeX;
        out->required_group[1] = kp->requiredGroupSizeY;
        out->required_group[2] = kp->requiredGroupSizeZ;
        /* The reflected reqd_work_group_size stands when a driver does not report it. */
        if (!out->required_group[0] && k->refl->required_group[0])
            memcpy(out->required_group, k->refl->required_group, sizeof out->required_group);
        if (maxp && maxp->maxGroupSize > 0) {
            out->max_group_size = maxp->maxGroupSize;
            out->max_group_size_from_extension = 1;
        } else {
            out->max_group_size = c->maxTotalGroupSize;
        }
        out->preferred_multiple = pref->preferredMultiple ? pref->preferredMultiple : 1;
        out->local_mem_size = kp->localMemSize;
        out->private_mem_size = kp->privateMemSize;
        out->spill_mem_size = kp->spillMemSize;
        /* Kernel state beside the public properties (the caller holds the kernel's lock). */
        k->private_bytes = pm ? pm->privateMemSize : kp->privateMemSize;
        k->private_max = pm ? pm->maxPrivateMemSize : 0;
        k->private_per_group = pm && pm->perGroup;
    }
    krt__arena_release(&arena);
    return r;
}

krt_result krt__kernel_properties_locked(krt_kernel *k, krt_kernel_properties **out)
{
    if (!k->props_valid) {
        krt_result r = krt__kernel_query_properties(k, k->ctx->drv->has_max_group_size_ext, &k->props);
        if (r != KRT_SUCCESS)
            return r;
        k->props_valid = 1;
    }
    *out = &k->props;
    return KRT_SUCCESS;
}

krt_result krt_kernel_properties_get(krt_kernel *kernel, krt_kernel_properties *out)
{
    if (!kernel || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_properties_get: %s is NULL",
                         kernel ? "out" : "kernel");
    pthread_mutex_lock(&kernel->lock);
    krt_kernel_properties *p;
    krt_result r = krt__kernel_properties_locked(kernel, &p);
    if (r == KRT_SUCCESS)
        *out = *p;
    pthread_mutex_unlock(&kernel->lock);
    return r;
}

krt_result krt_kernel_info_get(krt_kernel *kernel, krt_kernel_info *out)
{
    if (!kernel || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_info_get: %s is NULL", kernel ? "out" : "kernel");
    krt__kernel_info_fill(kernel->refl, out);
    /* The kernel's state, which its caller's word changes (krt_kernel_set_any_group). */
    pthread_mutex_lock(&kernel->lock);
    if (kernel->any_group) {
        out->any_group = 1;
        out->group_dependent = 0;
    }
    pthread_mutex_unlock(&kernel->lock);
    return KRT_SUCCESS;
}

krt_result krt_kernel_arg_info(krt_kernel *kernel, uint32_t index, krt_arg_info *out)
{
    if (!kernel || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_kernel_arg_info: %s is NULL", kernel ? "out" : "kernel");
    if (index >= kernel->refl->num_args)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "argument index %u out of range: %s has %u arguments", index,
                         kernel->refl->name, kernel->refl->num_args);
    *out = kernel->args[index];
    return KRT_SUCCESS;
}
