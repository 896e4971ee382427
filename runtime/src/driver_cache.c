/*
 * driver_cache.c: what krt asks a driver once and then looks up. The extension list of a driver cost about
 * 90 us per query on a real GPU and was most of the host time of launch-bound work when asked per launch;
 * device properties never change for a device handle. Both are kept in process-wide lists keyed by handle,
 * behind one lock, and emptied when krt initialises afresh.
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_private_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static krt__driver_entry *drivers;
static krt__device_entry *devices;

void krt__driver_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    while (drivers) {
        krt__driver_entry *next = drivers->next;
        free(drivers->extensions);
        free(drivers->names);
        free(drivers);
        drivers = next;
    }
    while (devices) {
        krt__device_entry *next = devices->next;
        free(devices);
        devices = next;
    }
    pthread_mutex_unlock(&cache_lock);
}

/* The two-call pattern: ask for the count, then for the entries. */
static krt_result query_extensions(ze_driver_handle_t driver, uint32_t *count,
                                   ze_driver_extension_properties_t **out)
{
    uint32_t n = 0;
    krt_result r = krt__ze(KRT__ZE(krt__ddi_of_driver(driver), Driver, GetExtensionProperties)(driver, &n, NULL), "zeDriverGetExtensionProperties");
    if (r != KRT_SUCCESS)
        return r;
    ze_driver_extension_properties_t *ext = calloc(n ? n : 1, sizeof *ext);
    if (!ext)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %u extension names", n);
    r = krt__ze(KRT__ZE(krt__ddi_of_driver(driver), Driver, GetExtensionProperties)(driver, &n, ext), "zeDriverGetExtensionProperties");
    if (r != KRT_SUCCESS) {
        free(ext);
        return r;
    }
    *count = n;
    *out = ext;
    return KRT_SUCCESS;
}

static int has_extension(const ze_driver_extension_properties_t *ext, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strncmp(ext[i].name, name, ZE_MAX_EXTENSION_NAME) == 0)
            return 1;
    return 0;
}

krt_result krt__driver_query_max_group_ext(ze_driver_handle_t driver, int *has_ext)
{
    uint32_t n = 0;
    ze_driver_extension_properties_t *ext = NULL;
    krt_result r = query_extensions(driver, &n, &ext);
    if (r != KRT_SUCCESS)
        return r;
    *has_ext = has_extension(ext, n, KRT__EXT_MAX_GROUP_SIZE);
    free(ext);
    return KRT_SUCCESS;
}

krt_result krt__driver_entry_get(ze_driver_handle_t driver, krt__driver_entry **out)
{
    pthread_mutex_lock(&cache_lock);
    for (krt__driver_entry *e = drivers; e; e = e->next)
        if (e->driver == driver) {
            *out = e;
            pthread_mutex_unlock(&cache_lock);
            return KRT_SUCCESS;
        }
    /* Queried under the lock so that two threads racing on a new driver make one query between them. */
    krt__driver_entry *e = calloc(1, sizeof *e);
    krt_result r = KRT_ERROR_OUT_OF_HOST_MEMORY;
    if (!e) {
        krt__fail(r, "out of host memory for the driver cache");
        goto done;
    }
    r = query_extensions(driver, &e->num_extensions, &e->extensions);
    if (r != KRT_SUCCESS) {
        free(e);
        goto done;
    }
    e->names = calloc(e->num_extensions ? e->num_extensions : 1, sizeof *e->names);
    if (!e->names) {
        free(e->extensions);
        free(e);
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the driver cache");
        goto done;
    }
    for (uint32_t i = 0; i < e->num_extensions; i++) {
        e->extensions[i].name[ZE_MAX_EXTENSION_NAME - 1] = '\0';
        e->names[i] = e->extensions[i].name;
    }
    e->has_max_group_size_ext = has_extension(e->extensions, e->num_extensions, KRT__EXT_MAX_GROUP_SIZE);
    e->has_exact_range_ext = has_extension(e->extensions, e->num_extensions, KRT__EXT_EXACT_RANGE);
    e->has_native_queue_ext = has_extension(e->extensions, e->num_extensions, "ZE_krt_native_queue");
    e->has_build_log_ext = has_extension(e->extensions, e->num_extensions, "ZE_krt_build_log");
    e->has_private_memory_ext = has_extension(e->extensions, e->num_extensions, ZE_KRT_PRIVATE_MEMORY_NAME);
    e->has_bounds_check_ext = has_extension(e->extensions, e->num_extensions, "ZE_krt_bounds_check");
    e->driver = driver;
    e->next = drivers;
    drivers = e;
    *out = e;
done:
    pthread_mutex_unlock(&cache_lock);
    return r;
}

static krt_result query_device(ze_device_handle_t device, krt__device_entry *e)
{
    e->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    krt_result r = krt__ze(KRT__ZE(krt__ddi_of_device(device), Device, GetProperties)(device, &e->props), "zeDeviceGetProperties");
    if (r != KRT_SUCCESS)
        return r;
    e->compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    r = krt__ze(KRT__ZE(krt__ddi_of_device(device), Device, GetComputeProperties)(device, &e->compute), "zeDeviceGetComputeProperties");
    if (r != KRT_SUCCESS)
        return r;
    e->module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
    r = krt__ze(KRT__ZE(krt__ddi_of_device(device), Device, GetModuleProperties)(device, &e->module), "zeDeviceGetModuleProperties");
    if (r != KRT_SUCCESS)
        return r;

    uint32_t n = 0;
    if (KRT__ZE(krt__ddi_of_device(device), Device, GetMemoryProperties)(device, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
        ze_device_memory_properties_t mem[8];
        if (n > 8)
            n = 8;
        for (uint32_t i = 0; i < n; i++) {
            memset(&mem[i], 0, sizeof mem[i]);
            mem[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
        }
        if (KRT__ZE(krt__ddi_of_device(device), Device, GetMemoryProperties)(device, &n, mem) == ZE_RESULT_SUCCESS)
            for (uint32_t i = 0; i < n; i++)
                e->memory_bytes += mem[i].totalSize;
    }

    /* The first queue group that can run kernels is where krt's queues go by default. */
    n = 0;
    e->compute_ordinal = 0;
    if (KRT__ZE(krt__ddi_of_device(device), Device, GetCommandQueueGroupProperties)(device, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
        ze_command_queue_group_properties_t groups[16];
        if (n > 16)
            n = 16;
        for (uint32_t i = 0; i < n; i++) {
            memset(&groups[i], 0, sizeof groups[i]);
            groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
        }
        if (KRT__ZE(krt__ddi_of_device(device), Device, GetCommandQueueGroupProperties)(device, &n, groups) == ZE_RESULT_SUCCESS)
            for (uint32_t i = 0; i < n; i++)
                if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
                    e->compute_ordinal = i;
                    break;
                }
    }
    return KRT_SUCCESS;
}

krt_result krt__device_entry_get(ze_device_handle_t device, krt__device_entry **out)
{
    pthread_mutex_lock(&cache_lock);
    for (krt__device_entry *e = devices; e; e = e->next)
        if (e->device == device) {
            *out = e;
            pthread_mutex_unlock(&cache_lock);
            return KRT_SUCCESS;
        }
    krt_result r;
    krt__device_entry *e = calloc(1, sizeof *e);
    if (!e) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the device cache");
    } else if ((r = query_device(device, e)) != KRT_SUCCESS) {
        free(e);
    } else {
        e->device = device;
        e->next = devices;
        devices = e;
        *out = e;
    }
    pthread_mutex_unlock(&cache_lock);
    return r;
}

static krt_device_type device_type(ze_device_type_t t)
{
    switch (t) {
    case ZE_DEVICE_TYPE_GPU:
        return KRT_DEVICE_TYPE_GPU;
    case ZE_DEVICE_TYPE_CPU:
        return KRT_DEVICE_TYPE_CPU;
    case ZE_DEVICE_TYPE_FPGA:
        return KRT_DEVICE_TYPE_FPGA;
    case ZE_DEVICE_TYPE_MCA:
        return KRT_DEVICE_TYPE_ACCELERATOR;
    default:
        return KRT_DEVICE_TYPE_OTHER;
    }
}

/* ze_pocl's driver UUID begins with the bytes "ze_pocl"; any other driver is named by its UUID in hex. */
static int is_ze_pocl(const ze_driver_properties_t *dp)
{
    return memcmp(dp->uuid.id, "ze_pocl", 7) == 0;
}

void krt__device_info_fill(const krt__driver_entry *drv, const krt__device_entry *dev, uint32_t driver_index,
                           uint32_t device_index, krt_device_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", dev->props.name);
    ze_driver_properties_t dp = { .stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES };
    ze_api_version_t api = 0;
    KRT__ZE(krt__ddi_of_driver(drv->driver), Driver, GetApiVersion)(drv->driver, &api);
    if (KRT__ZE(krt__ddi_of_driver(drv->driver), Driver, GetProperties)(drv->driver, &dp) == ZE_RESULT_SUCCESS)
        out->driver_version = dp.driverVersion;
    if (krt__host_is_driver_handle(drv->driver)) {
        snprintf(out->driver_name, sizeof out->driver_name, "host");
    } else if (is_ze_pocl(&dp)) {
        snprintf(out->driver_name, sizeof out->driver_name, "ze_pocl");
    } else if (memcmp(dp.uuid.id, "ze_cuda", 7) == 0) {
        snprintf(out->driver_name, sizeof out->driver_name, "ze_cuda");
    } else {
        char *p = out->driver_name;
        for (int i = 0; i < ZE_MAX_DRIVER_UUID_SIZE && (size_t)(p - out->driver_name) + 3 <= sizeof out->driver_name;
             i++)
            p += snprintf(p, 3, "%02x", dp.uuid.id[i]);
    }
    out->type = krt__host_is_driver_handle(drv->driver) ? KRT_DEVICE_TYPE_HOST : device_type(dev->props.type);
    out->driver_index = driver_index;
    out->device_index = device_index;
    out->api_version_major = ZE_MAJOR_VERSION(api);
    out->api_version_minor = ZE_MINOR_VERSION(api);
    out->vendor_id = dev->props.vendorId;
    out->compute_units = dev->props.numSlices * dev->props.numSubslicesPerSlice * dev->props.numEUsPerSubslice;
    out->clock_mhz = dev->props.coreClockRate;
    out->max_group_size = dev->compute.maxTotalGroupSize;
    out->max_group[0] = dev->compute.maxGroupSizeX;
    out->max_group[1] = dev->compute.maxGroupSizeY;
    out->max_group[2] = dev->compute.maxGroupSizeZ;
    out->max_group_count[0] = dev->compute.maxGroupCountX;
    out->max_group_count[1] = dev->compute.maxGroupCountY;
    out->max_group_count[2] = dev->compute.maxGroupCountZ;
    out->max_shared_local_memory = dev->compute.maxSharedLocalMemory;
    uint32_t nsg = dev->compute.numSubGroupSizes;
    if (nsg > 8)
        nsg = 8;
    for (uint32_t i = 0; i < nsg; i++)
        out->sub_group_sizes[i] = dev->compute.subGroupSizes[i];
    out->num_sub_group_sizes = nsg;
    out->memory_bytes = dev->memory_bytes;
    out->fp16 = (dev->module.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0;
    out->fp64 = (dev->module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
    out->int64_atomics = (dev->module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0;
    /* A CPU device's allocations, device memory included, are the host's memory (ze_pocl serves every kind
     * from the host allocator), and so are the host device's. Level Zero gives a GPU's device memory no host
     * access at all. */
    out->device_memory_host_accessible = out->type == KRT_DEVICE_TYPE_CPU || out->type == KRT_DEVICE_TYPE_HOST;
}

int krt__device_reaches(krt_context *ctx, ze_device_handle_t peer)
{
    if (peer == ctx->device)
        return 1;
    ze_bool_t can = 0;
    if (!KRT__ZE(ctx->ddi, Device, CanAccessPeer) ||
        KRT__ZE(ctx->ddi, Device, CanAccessPeer)(ctx->device, peer, &can) != ZE_RESULT_SUCCESS)
        return 0;
    return can != 0;
}
