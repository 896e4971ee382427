/* Kernel entry points: creation, arguments, group sizes and properties. The argument values are kept
 * here as well as in the backend kernel, so a regular command list can snapshot them and the backend
 * can be brought back to them after a replay. */
#include <stdio.h>

#include "zp.h"
#include "api.h"

/* Bytes one argument takes in arg_data. */
static uint32_t slot_size(const zp_arg_meta *a) {
    switch (a->kind) {
    case ZP_ARG_GLOBAL:
    case ZP_ARG_CONSTANT: return sizeof(void *);
    case ZP_ARG_LOCAL: return sizeof(size_t);
    default: return a->size;
    }
}

ze_result_t zp_kernel_apply_args(ze_kernel_handle_t k, const uint8_t *args) {
    for (uint32_t i = 0; i < k->meta->num_args; i++) {
        if (!k->arg_set[i]) continue;
        const zp_arg_meta *a = &k->meta->args[i];
        const uint8_t *slot = args + k->arg_off[i];
        ze_result_t r;
        if (a->kind == ZP_ARG_GLOBAL || a->kind == ZP_ARG_CONSTANT) {
            void *p;
            memcpy(&p, slot, sizeof p);
            r = zp_be->kernel_set_arg(k->bkern, i, a->kind, sizeof p, p);
        } else if (a->kind == ZP_ARG_LOCAL) {
            size_t n;
            memcpy(&n, slot, sizeof n);
            r = zp_be->kernel_set_arg(k->bkern, i, a->kind, n, NULL);
        } else {
            r = zp_be->kernel_set_arg(k->bkern, i, a->kind, a->size, slot);
        }
        if (r != ZE_RESULT_SUCCESS) return r;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc, ze_kernel_handle_t *phKernel) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phKernel);
    ZP_CHECK_PTR(desc->pKernelName);
    if (desc->flags > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    const zp_kernel_meta *meta = NULL;
    for (uint32_t i = 0; i < hModule->meta.count; i++)
        if (strcmp(hModule->meta.kernels[i].name, desc->pKernelName) == 0) meta = &hModule->meta.kernels[i];
    if (!meta) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;

    ze_kernel_handle_t k = calloc(1, sizeof *k);
    if (!k) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t n = meta->num_args;
    k->arg_set = calloc(n ? n : 1, 1);
    k->arg_off = calloc(n ? n : 1, sizeof *k->arg_off);
    size_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k->arg_off) k->arg_off[i] = (uint32_t)bytes;
        bytes += (slot_size(&meta->args[i]) + 7u) & ~(size_t)7u;
    }
    k->arg_bytes = bytes;
    k->arg_data = calloc(bytes ? bytes : 1, 1);
    if (!k->arg_set || !k->arg_off || !k->arg_data) {
        free(k->arg_set);
        free(k->arg_off);
        free(k->arg_data);
        free(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* The backend's program may know the kernel by a short internal name (ZP_SPIRV_SHORT_NAMES, ze_pocl). */
    ze_result_t r = zp_be->kernel_create(hModule->bmod, zp_kernel_backend_name(meta), &k->bkern, &k->limits);
    if (r != ZE_RESULT_SUCCESS) {
        free(k->arg_set);
        free(k->arg_off);
        free(k->arg_data);
        free(k);
        return r;
    }
    pthread_mutex_init(&k->lock, NULL);
    k->magic = ZP_MAGIC_KERNEL;
    k->module = hModule;
    k->meta = meta;
    k->fault = zp_fault_wanted(meta->name); /* the test knob KRT_ZE_FAULT (fault.c) */
    k->trace = zp_trace_wanted();           /* the debugging knob KRT_ZE_TRACE (trace.c) */
    /* A group shares its private memory limit only where the items' variables live across a barrier. */
    if (!meta->whole_groups) k->limits.private_per_group = false;
    atomic_fetch_add(&hModule->live_kernels, 1);
    for (int d = 0; d < 3; d++) k->group[d] = meta->reqd[0] ? meta->reqd[d] : 1;
    *phKernel = k;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelDestroy(ze_kernel_handle_t hKernel) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    /* After a loss no wait held its caller until the work behind it was done with the kernel (fault.c). */
    if (zp_device_lost(hKernel->module->dev)) zp_fault_run_out();
    hKernel->magic = 0;
    atomic_fetch_sub(&hKernel->module->live_kernels, 1);
    zp_be->kernel_destroy(hKernel->bkern);
    pthread_mutex_destroy(&hKernel->lock);
    free(hKernel->arg_set);
    free(hKernel->arg_off);
    free(hKernel->arg_data);
    free(hKernel);
    return ZE_RESULT_SUCCESS;
}

/* True when the n bytes at a equal those at b. Arguments are mostly 4 or 8 bytes: those are compared
 * inline, without a call to memcmp. */
static inline bool same_bytes(const void *a, const void *b, size_t n) {
    if (n == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    if (n == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    return memcmp(a, b, n) == 0;
}

/* Zeros for a NULL by-value argument, so that the slot changes only once the backend took the value. */
static const uint8_t zp_zeros[256];

/* Every check, then the value handed to the backend and kept in the slot, under the kernel lock. */
static __attribute__((noinline)) ze_result_t set_arg(ze_kernel_handle_t k, uint32_t argIndex, size_t argSize,
                                                     const void *pArgValue) {
    if (argIndex >= k->meta->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const zp_arg_meta *a = &k->meta->args[argIndex];
    uint8_t *slot = k->arg_data + k->arg_off[argIndex];
    /* The bytes the slot will hold: the pointer value, the local size, or the by-value bytes (NULL for
     * zeros). */
    uint8_t tmp[sizeof(void *) > sizeof(size_t) ? sizeof(void *) : sizeof(size_t)] = {0};
    const void *bytes = tmp;
    size_t slot_len;
    const void *value;
    size_t size;
    switch (a->kind) {
    case ZP_ARG_GLOBAL:
    case ZP_ARG_CONSTANT: {
        if (argSize != sizeof(void *)) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        void *p = NULL;
        if (pArgValue) memcpy(&p, pArgValue, sizeof p);
        memcpy(tmp, &p, sizeof p);
        value = p;
        size = sizeof p;
        slot_len = sizeof p;
        break;
    }
    case ZP_ARG_LOCAL: {
        if (argSize == 0) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        /* The kernel's static local memory (as the backend allocates it, when that is more) and all its local
         * arguments must fit the device's local memory (PoCL aborts the process on a work-group it cannot
         * allocate). */
        uint64_t total = (k->limits.local_alloc > k->meta->local_static ? k->limits.local_alloc : k->meta->local_static) +
                         argSize;
        for (uint32_t i = 0; i < k->meta->num_args; i++) {
            if (i == argIndex || k->meta->args[i].kind != ZP_ARG_LOCAL || !k->arg_set[i]) continue;
            size_t other;
            memcpy(&other, k->arg_data + k->arg_off[i], sizeof other);
            total += other;
        }
        if (total > k->module->dev->info.local_mem) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        memcpy(tmp, &argSize, sizeof argSize);
        value = NULL;
        size = argSize;
        slot_len = sizeof argSize;
        break;
    }
    case ZP_ARG_SCALAR:
    case ZP_ARG_BYVAL:
        if (argSize != a->size) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        value = pArgValue;
        size = argSize;
        slot_len = argSize;
        bytes = pArgValue;
        break;
    default:
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    pthread_mutex_lock(&k->lock);
    ze_result_t r;
    if (value == NULL && (a->kind == ZP_ARG_SCALAR || a->kind == ZP_ARG_BYVAL)) {
        /* A NULL value means zero for a by-value argument. The slot is cleared only once the backend
         * took the zeros, so that slot and backend never disagree. */
        if (size <= sizeof zp_zeros) {
            r = zp_be->kernel_set_arg(k->bkern, argIndex, a->kind, size, zp_zeros);
        } else {
            uint8_t *z = calloc(1, size);
            r = z ? zp_be->kernel_set_arg(k->bkern, argIndex, a->kind, size, z) : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            free(z);
        }
        if (r == ZE_RESULT_SUCCESS) memset(slot, 0, size);
    } else {
        r = zp_be->kernel_set_arg(k->bkern, argIndex, a->kind, size, value);
        if (r == ZE_RESULT_SUCCESS) memcpy(slot, bytes, slot_len);
    }
    if (r == ZE_RESULT_SUCCESS && !k->arg_set[argIndex]) {
        k->arg_set[argIndex] = 1;
        k->args_set++;
    }
    pthread_mutex_unlock(&k->lock);
    return r;
}

/* ZE_krt_exact_range: the argument one past the last is the kernel's true range (driver/include). Kernel state
 * like the group size: the spec forbids changing it concurrently with an append of the kernel. */
static ze_result_t set_exact_range(ze_kernel_handle_t k, size_t argSize, const void *pArgValue) {
    if (argSize != sizeof(ze_krt_exact_range_t)) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    ze_krt_exact_range_t r = {{0, 0, 0}};
    if (pArgValue) memcpy(&r, pArgValue, sizeof r);
    bool any = r.size[0] | r.size[1] | r.size[2];
    if (any && (r.size[0] == 0 || r.size[1] == 0 || r.size[2] == 0)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&k->lock);
    memcpy(k->exact, r.size, sizeof k->exact);
    k->has_exact = any;
    pthread_mutex_unlock(&k->lock);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize, const void *pArgValue) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ze_kernel_handle_t k = hKernel;
    if (argIndex == k->meta->num_args) return set_exact_range(k, argSize, pArgValue);
    /* Unchanged value: nothing to do. The value passes the same checks as in set_arg (index, size), the
     * slot already holds its bytes, and the backend kernel holds them too unless a replay left other
     * values there, in which case backend_stale is set and the next immediate append puts the slots back
     * first; a recorded launch copies the slots. So returning here is exactly what setting the value
     * again would do. Local sizes and NULL by-value arguments always take the full path. The check reads
     * the slot without the kernel lock: the only writer of a slot is this function, which the
     * specification forbids calling from two threads at once on one kernel; even then a torn read can
     * only make this call return as if it had come just before the concurrent one. */
    if (argIndex < k->meta->num_args && k->arg_set[argIndex]) {
        const zp_arg_meta *a = &k->meta->args[argIndex];
        const uint8_t *slot = k->arg_data + k->arg_off[argIndex];
        switch (a->kind) {
        case ZP_ARG_GLOBAL:
        case ZP_ARG_CONSTANT:
            if (argSize == sizeof(void *)) {
                void *p = NULL, *held;
                if (pArgValue) memcpy(&p, pArgValue, sizeof p);
                memcpy(&held, slot, sizeof held);
                if (p == held) return ZE_RESULT_SUCCESS;
            }
            break;
        case ZP_ARG_SCALAR:
        case ZP_ARG_BYVAL:
            if (argSize == a->size && pArgValue && same_bytes(slot, pArgValue, argSize)) return ZE_RESULT_SUCCESS;
            break;
        default:
            break;
        }
    }
    return set_arg(k, argIndex, argSize, pArgValue);
}

/* Largest group the kernel may run with on its device. */
static uint32_t max_group(ze_kernel_handle_t k) {
    const zp_kernel_meta *m = k->meta;
    if (m->reqd[0]) return m->reqd[0] * m->reqd[1] * m->reqd[2];
    uint32_t dev_max = k->module->dev->info.max_group_total;
    uint32_t lim = k->limits.max_group_total;
    return lim && lim < dev_max ? lim : dev_max;
}

ze_result_t zp_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    /* The size in place passed every check below when it was set (group_valid), and the limits it was
     * checked against are fixed for the kernel's life: setting it again changes nothing. Read without
     * the lock, as the append reads it (the specification forbids changing it concurrently). */
    if (hKernel->group_valid && x == hKernel->group[0] && y == hKernel->group[1] && z == hKernel->group[2])
        return ZE_RESULT_SUCCESS;
    const zp_device_info *in = &hKernel->module->dev->info;
    if (x == 0 || y == 0 || z == 0) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    if (x > in->max_group[0] || y > in->max_group[1] || z > in->max_group[2])
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    if ((uint64_t)x * y * z > max_group(hKernel)) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    const uint32_t *req = hKernel->meta->reqd;
    if (req[0] && (x != req[0] || y != req[1] || z != req[2])) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    pthread_mutex_lock(&hKernel->lock);
    hKernel->group[0] = x;
    hKernel->group[1] = y;
    hKernel->group[2] = z;
    hKernel->group_valid = true;
    pthread_mutex_unlock(&hKernel->lock);
    return ZE_RESULT_SUCCESS;
}

/* Largest divisor of n that is at most cap (1 for primes above cap). */
static uint32_t largest_divisor(uint32_t n, uint32_t cap) {
    if (cap >= n) return n;
    for (uint32_t d = cap; d > 1; d--)
        if (n % d == 0) return d;
    return 1;
}

/* Groups bigger than this gain nothing on a CPU device (each group runs on one core) and leave cores
 * idle on small ranges. */
#define ZP_SUGGEST_CAP 256u

ze_result_t zp_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t gx, uint32_t gy, uint32_t gz,
                                        uint32_t *x, uint32_t *y, uint32_t *z) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(x);
    ZP_CHECK_PTR(y);
    ZP_CHECK_PTR(z);
    if (gx == 0 || gy == 0 || gz == 0) return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    const uint32_t *req = hKernel->meta->reqd;
    if (req[0]) {
        *x = req[0];
        *y = req[1];
        *z = req[2];
        return ZE_RESULT_SUCCESS;
    }
    const zp_device_info *in = &hKernel->module->dev->info;
    uint32_t budget = max_group(hKernel);
    if (budget > ZP_SUGGEST_CAP) budget = ZP_SUGGEST_CAP;
    uint32_t sx = largest_divisor(gx, budget < in->max_group[0] ? budget : in->max_group[0]);
    budget /= sx;
    uint32_t sy = largest_divisor(gy, budget < in->max_group[1] ? budget : in->max_group[1]);
    budget /= sy;
    uint32_t sz = largest_divisor(gz, budget < in->max_group[2] ? budget : in->max_group[2]);
    *x = sx;
    *y = sy;
    *z = sz;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel, uint32_t *totalGroupCount) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(totalGroupCount);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zp_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t flags) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    if (flags > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    /* All memory is shared virtual memory in one address space: indirect access always works, so the flags
     * change nothing; they are kept so that zeKernelGetIndirectAccess returns what was set. */
    atomic_store_explicit(&hKernel->indirect, flags, memory_order_relaxed);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t *pFlags) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(pFlags);
    *pFlags = atomic_load_explicit(&hKernel->indirect, memory_order_relaxed);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    if (flags > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;
}

static uint32_t clamp32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* A work-item's private memory: the compiled kernel's, where the backend knows it (ze_cuda), else the module's. */
static uint64_t private_size(ze_kernel_handle_t k) {
    return k->limits.has_sizes ? k->limits.private_size : k->meta->private_size;
}

/* Issue 39: a kernel whose private memory cannot be had would run on a stack too small for it (ze_pocl and the host
 * device: a crash of the process) or not at all; the launch is refused instead, as the specification lets any call
 * refuse what the device's memory cannot hold. */
ze_result_t zp_kernel_private_check(ze_kernel_handle_t k) {
    uint64_t max = k->limits.private_max, priv = private_size(k);
    if (max == 0 || priv == 0) return ZE_RESULT_SUCCESS;
    uint64_t items = 1;
    if (k->limits.private_per_group) items = (uint64_t)k->group[0] * k->group[1] * k->group[2];
    uint64_t need;
    if (__builtin_mul_overflow(priv, items ? items : 1, &need) || need > max) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *p) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(p);
    const zp_kernel_meta *m = hKernel->meta;
    uint32_t mg = max_group(hKernel);
    p->numKernelArgs = m->num_args;
    p->requiredGroupSizeX = m->reqd[0];
    p->requiredGroupSizeY = m->reqd[1];
    p->requiredGroupSizeZ = m->reqd[2];
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = m->reqd_subgroup;
    p->maxSubgroupSize = 1;
    p->maxNumSubgroups = mg;
    p->localMemSize = clamp32(m->local_static);
    p->privateMemSize = clamp32(m->private_size);
    p->spillMemSize = clamp32(m->spill_size);
    const zp_kernel_limits *lim = &hKernel->limits;
    if (lim->subgroup_size) {
        p->maxSubgroupSize = lim->subgroup_size;
        p->maxNumSubgroups = (mg + lim->subgroup_size - 1) / lim->subgroup_size;
    }
    if (lim->has_sizes) {
        p->localMemSize = clamp32(lim->local_static);
        p->privateMemSize = clamp32(lim->private_size);
        p->spillMemSize = clamp32(lim->spill_size);
    }
    memset(&p->uuid, 0, sizeof p->uuid);
    /* Walk the chain; structures ze_pocl does not know are left untouched. The bound stops a cyclic
     * chain from looping forever. */
    ze_base_properties_t *ext = p->pNext;
    for (int guard = 0; ext && guard < 64; guard++, ext = ext->pNext) {
        if (ext->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES) {
            ((ze_kernel_preferred_group_size_properties_t *)ext)->preferredMultiple = hKernel->limits.preferred_multiple;
        } else if (ext->stype == ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES) {
            ((ze_kernel_max_group_size_properties_ext_t *)ext)->maxGroupSize = mg;
        } else if (ext->stype == ZE_STRUCTURE_TYPE_KRT_KERNEL_PRIVATE_MEMORY_PROPERTIES) {
            ze_krt_kernel_private_memory_properties_t *pm = (ze_krt_kernel_private_memory_properties_t *)ext;
            pm->privateMemSize = private_size(hKernel);
            pm->maxPrivateMemSize = lim->private_max;
            pm->perGroup = lim->private_per_group;
        }
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(pSize);
    const char *name = hKernel->meta->name;
    size_t need = strlen(name) + 1;
    if (pName == NULL || *pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pName, name, n - 1);
    pName[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize, char **pString) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(pSize);
    /* The attributes the module's execution modes give (spirv/meta.cpp), space-separated, NUL-terminated.
     * pString points to the caller's char pointer, which points to the caller's buffer of *pSize bytes (the
     * specification keeps the extra indirection for compatibility). A smaller buffer gets the attributes cut,
     * still NUL-terminated. */
    const char *a = hKernel->meta->attrs ? hKernel->meta->attrs : "";
    size_t need = strlen(a) + 1;
    if (pString == NULL || *pString == NULL || *pSize == 0) {
        *pSize = (uint32_t)need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(*pString, a, n - 1);
    (*pString)[n - 1] = '\0';
    *pSize = (uint32_t)n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z) {
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    pthread_mutex_lock(&hKernel->lock);
    hKernel->offset[0] = x;
    hKernel->offset[1] = y;
    hKernel->offset[2] = z;
    hKernel->has_offset = (x | y | z) != 0;
    pthread_mutex_unlock(&hKernel->lock);
    return ZE_RESULT_SUCCESS;
}
