/* Device entry points: enumeration and every property query. */
#include <stdio.h>

#include "zp.h"
#include "api.h"

#define ZP_NUM_QUEUES 4u

/* Two-call pattern helper: returns true when the caller only asked for the count. */
static bool count_only(uint32_t *pCount, const void *out, uint32_t n) {
    if (*pCount == 0 || out == NULL) {
        *pCount = n;
        return true;
    }
    if (*pCount > n) *pCount = n;
    return false;
}

ze_result_t zp_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(pCount);
    if (count_only(pCount, phDevices, zp_driver.num_devices)) return ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < *pCount; i++) phDevices[i] = &zp_driver.devices[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_handle_t *phSubdevices) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(pCount);
    (void)phSubdevices;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    const zp_device_info *in = &hDevice->info;
    p->type = in->gpu || in->report_gpu ? ZE_DEVICE_TYPE_GPU : ZE_DEVICE_TYPE_CPU;
    p->vendorId = in->vendor_id;
    p->deviceId = in->device_id;
    p->flags = in->gpu ? 0 : ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;
    p->subdeviceId = 0;
    p->coreClockRate = in->clock_mhz;
    p->maxMemAllocSize = in->max_alloc;
    p->maxHardwareContexts = 1;
    p->maxCommandQueuePriority = 0;
    /* One EU per core, one thread per EU: the CPU's cores are what runs work-groups. */
    p->numThreadsPerEU = 1;
    p->physicalEUSimdWidth = 8;
    p->numEUsPerSubslice = in->compute_units;
    p->numSubslicesPerSlice = 1;
    p->numSlices = 1;
    /* Command timestamps are nanoseconds; the 1.2 form of the struct asks for ticks per second. */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000u : 1u;
    p->timestampValidBits = ZP_TIMESTAMP_BITS;
    p->kernelTimestampValidBits = ZP_TIMESTAMP_BITS;
    memset(&p->uuid, 0, sizeof p->uuid);
    memcpy(p->uuid.id, "ze_pocl", 7);
    p->uuid.id[8] = (uint8_t)hDevice->index;
    if (in->has_uuid) memcpy(p->uuid.id, in->uuid, sizeof in->uuid);
    snprintf(p->name, sizeof p->name, "%s", in->name);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetComputeProperties(ze_device_handle_t hDevice, ze_device_compute_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    const zp_device_info *in = &hDevice->info;
    p->maxTotalGroupSize = in->max_group_total;
    p->maxGroupSizeX = in->max_group[0];
    p->maxGroupSizeY = in->max_group[1];
    p->maxGroupSizeZ = in->max_group[2];
    p->maxGroupCountX = in->max_group_count[0] ? in->max_group_count[0] : UINT32_MAX;
    p->maxGroupCountY = in->max_group_count[1] ? in->max_group_count[1] : UINT32_MAX;
    p->maxGroupCountZ = in->max_group_count[2] ? in->max_group_count[2] : UINT32_MAX;
    p->maxSharedLocalMemory = in->local_mem > UINT32_MAX ? UINT32_MAX : (uint32_t)in->local_mem;
    p->numSubGroupSizes = 1;
    memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    p->subGroupSizes[0] = in->subgroup_size ? in->subgroup_size : 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetModuleProperties(ze_device_handle_t hDevice, ze_device_module_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    const zp_device_info *in = &hDevice->info;
    /* The SPIR-V reader of LLVM 15 takes SPIR-V up to 1.4. */
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 4);
    p->flags = 0;
    if (in->fp16) p->flags |= ZE_DEVICE_MODULE_FLAG_FP16;
    if (in->fp64) p->flags |= ZE_DEVICE_MODULE_FLAG_FP64;
    if (in->int64_atomics) p->flags |= ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    ze_device_fp_flags_t full = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
                                ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO |
                                ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    p->fp16flags = in->fp16 ? full : 0;
    p->fp32flags = full;
    p->fp64flags = in->fp64 ? full : 0;
    p->maxArgumentsSize = in->max_args_size;
    p->printfBufferSize = in->printf_buffer;
    memset(&p->nativeKernelSupported, 0, sizeof p->nativeKernelSupported);
    /* ZE_extension_float_atomics: what SPV_EXT_shader_atomic_float_add and _min_max run as (none on half). The chain
     * is walked as zeKernelGetProperties walks its own; structures of other types are left untouched. */
    ze_base_properties_t *ext = p->pNext;
    for (int guard = 0; ext && guard < 64; guard++, ext = ext->pNext) {
        if (ext->stype != ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES) continue;
        ze_float_atomic_ext_properties_t *fa = (ze_float_atomic_ext_properties_t *)ext;
        ze_device_fp_atomic_ext_flags_t all =
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD |
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE |
            ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX;
        fa->fp16Flags = 0;
        fa->fp32Flags = in->float_atomics ? all : 0;
        fa->fp64Flags = in->float_atomics && in->fp64 ? all : 0;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                      ze_command_queue_group_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(pCount);
    if (count_only(pCount, p, 1)) return ZE_RESULT_SUCCESS;
    p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    p[0].maxMemoryFillPatternSize = 128;
    p[0].numQueues = ZP_NUM_QUEUES;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                           ze_device_memory_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(pCount);
    if (count_only(pCount, p, 1)) return ZE_RESULT_SUCCESS;
    p[0].flags = 0;
    p[0].maxClockRate = 0;
    p[0].maxBusWidth = 64;
    p[0].totalSize = hDevice->info.global_mem;
    snprintf(p[0].name, sizeof p[0].name, "%s", "system memory");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice, ze_device_memory_access_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    ze_memory_access_cap_flags_t all = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
                                       ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT |
                                       ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
    p->hostAllocCapabilities = all;
    p->deviceAllocCapabilities = all;
    p->sharedSingleDeviceAllocCapabilities = all;
    p->sharedCrossDeviceAllocCapabilities = all;
    /* On a CPU device, memory from the system allocator (malloc, new, the stack) is the device's own memory:
     * kernels read, write and update it atomically as they do any allocation, concurrently with the host. A
     * GPU backend's kernels cannot reach it. */
    p->sharedSystemAllocCapabilities = hDevice->info.gpu ? 0 : all;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_cache_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(pCount);
    if (count_only(pCount, p, 1)) return ZE_RESULT_SUCCESS;
    p[0].flags = 0;
    p[0].cacheSize = (size_t)hDevice->info.cache_size;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetImageProperties(ze_device_handle_t hDevice, ze_device_image_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    /* Images are not supported: every limit is zero. */
    p->maxImageDims1D = p->maxImageDims2D = p->maxImageDims3D = 0;
    p->maxImageBufferSize = 0;
    p->maxImageArraySlices = 0;
    p->maxSamplers = 0;
    p->maxReadImageArgs = p->maxWriteImageArgs = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetExternalMemoryProperties(ze_device_handle_t hDevice, ze_device_external_memory_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    p->memoryAllocationImportTypes = 0;
    p->memoryAllocationExportTypes = 0;
    p->imageImportTypes = 0;
    p->imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
}

/* ZP_PEER_* bits of dev towards peer. */
static unsigned peer_bits(ze_device_handle_t dev, ze_device_handle_t peer) {
    if (dev == peer || !zp_be->can_access_peer) return ZP_PEER_ACCESS | ZP_PEER_ATOMICS;
    return zp_be->can_access_peer(dev->bdev, peer->bdev);
}

bool zp_device_reaches(ze_device_handle_t dev, ze_device_handle_t peer) {
    return (peer_bits(dev, peer) & ZP_PEER_ACCESS) != 0;
}

ze_result_t zp_zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_device_p2p_properties_t *p) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_HANDLE(hPeer, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(p);
    /* ze_pocl's devices share one address space (SVM in one OpenCL context) unless ZE_POCL_PEER says otherwise;
     * ze_cuda's answer is CUDA's (cuDeviceCanAccessPeer, and the native-atomics attribute of the pair). */
    unsigned bits = peer_bits(hDevice, hPeer);
    p->flags = 0;
    if (bits & ZP_PEER_ACCESS) p->flags |= ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS;
    if ((bits & ZP_PEER_ACCESS) && (bits & ZP_PEER_ATOMICS)) p->flags |= ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_bool_t *value) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_HANDLE(hPeer, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(value);
    *value = zp_device_reaches(hDevice, hPeer) ? 1 : 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetStatus(ze_device_handle_t hDevice) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    return ZE_RESULT_SUCCESS;
}

/* API 1.7: no device of these drivers is a sub-device (zeDeviceGetSubDevices lists none), so none has a root
 * device: NULL, as the specification says for "a device handle that does not belong to any root-device". */
ze_result_t zp_zeDeviceGetRootDevice(ze_device_handle_t hDevice, ze_device_handle_t *phRootDevice) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(phRootDevice);
    *phRootDevice = NULL;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp, uint64_t *deviceTimestamp) {
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(hostTimestamp);
    ZP_CHECK_PTR(deviceTimestamp);
    zp_be->timestamps(hDevice->bdev, hostTimestamp, deviceTimestamp);
    /* The host timestamp is the host's clock as it is; only the device's has timestampValidBits. */
    *deviceTimestamp = zp_ts(*deviceTimestamp);
    return ZE_RESULT_SUCCESS;
}
