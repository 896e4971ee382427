/* The table getters, as zp_<getter> (driver/ddi.h): the loader reaches them through the exported names of
 * ddi_export.c, libkrt's in-process host driver directly (driver/host/host_ddi.c). The loader calls them before zeInit, with
 * its own API version, and passes a table of that version's layout (tables only grow, new entries at the
 * end). ze_pocl implements API 1.4:
 *   - a request for 1.4 or any later 1.x gets the 1.4 entries and the rest of the caller's table untouched
 *     (loaders zero their tables, so a newer entry stays NULL and the loader answers for it): "an older
 *     version's table", which is what lets a newer loader load ze_pocl at all, since a loader skips a driver
 *     whose getter fails;
 *   - a request for 1.0 to 1.3 gets only the entries that version's table has: writing a 1.4 entry into
 *     an older, shorter table would write past its end;
 *   - a table that did not exist yet in the requested version, or a major version other than 1, gets
 *     ZE_RESULT_ERROR_UNSUPPORTED_VERSION.
 * The version each entry was added in is the one the Level Zero specification gives for its function.
 *
 * Entries ze_pocl does not implement point to one function that returns
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. It is called through pointer types with other parameter
 * lists; on every ABI ze_pocl targets (System V x86-64, AArch64) a callee that ignores its arguments
 * may be called that way, and it lets one function answer every unsupported entry. */
#include "zp.h"
#include "api.h"
#include "ddi.h"

#include <level_zero/zet_ddi.h>
#include <level_zero/zes_ddi.h>

static ze_result_t zp_unsupported(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

#define ZP_UNSUPPORTED(type) ((type)(void (*)(void))zp_unsupported)

static ze_result_t check_version(ze_api_version_t version, const void *table) {
    if (table == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (ZE_MAJOR_VERSION(version) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    return ZE_RESULT_SUCCESS;
}

/* True when the requested table version has entries added in 1.minor. */
#define ZP_HAS(minor) (version >= ZE_MAKE_VERSION(1, minor))

/* check_version for a table first defined in API 1.minor. */
static ze_result_t check_version_since(ze_api_version_t version, const void *table, int minor) {
    ze_result_t r = check_version(version, table);
    if (r == ZE_RESULT_SUCCESS && !ZP_HAS(minor)) r = ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    return r;
}

ze_result_t zp_zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnInit = zp_zeInit;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGet = zp_zeDriverGet;
    t->pfnGetApiVersion = zp_zeDriverGetApiVersion;
    t->pfnGetProperties = zp_zeDriverGetProperties;
    t->pfnGetIpcProperties = zp_zeDriverGetIpcProperties;
    t->pfnGetExtensionProperties = zp_zeDriverGetExtensionProperties;
    if (ZP_HAS(1)) t->pfnGetExtensionFunctionAddress = zp_zeDriverGetExtensionFunctionAddress;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGet = zp_zeDeviceGet;
    t->pfnGetSubDevices = zp_zeDeviceGetSubDevices;
    t->pfnGetProperties = zp_zeDeviceGetProperties;
    t->pfnGetComputeProperties = zp_zeDeviceGetComputeProperties;
    t->pfnGetModuleProperties = zp_zeDeviceGetModuleProperties;
    t->pfnGetCommandQueueGroupProperties = zp_zeDeviceGetCommandQueueGroupProperties;
    t->pfnGetMemoryProperties = zp_zeDeviceGetMemoryProperties;
    t->pfnGetMemoryAccessProperties = zp_zeDeviceGetMemoryAccessProperties;
    t->pfnGetCacheProperties = zp_zeDeviceGetCacheProperties;
    t->pfnGetImageProperties = zp_zeDeviceGetImageProperties;
    t->pfnGetExternalMemoryProperties = zp_zeDeviceGetExternalMemoryProperties;
    t->pfnGetP2PProperties = zp_zeDeviceGetP2PProperties;
    t->pfnCanAccessPeer = zp_zeDeviceCanAccessPeer;
    t->pfnGetStatus = zp_zeDeviceGetStatus;
    if (ZP_HAS(1)) t->pfnGetGlobalTimestamps = zp_zeDeviceGetGlobalTimestamps;
    if (ZP_HAS(2)) t->pfnReserveCacheExt = ZP_UNSUPPORTED(ze_pfnDeviceReserveCacheExt_t);
    if (ZP_HAS(2)) t->pfnSetCacheAdviceExt = ZP_UNSUPPORTED(ze_pfnDeviceSetCacheAdviceExt_t);
    if (ZP_HAS(3)) t->pfnPciGetPropertiesExt = ZP_UNSUPPORTED(ze_pfnDevicePciGetPropertiesExt_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDeviceExpProcAddrTable(ze_api_version_t version, ze_device_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetFabricVertexExp = ZP_UNSUPPORTED(ze_pfnDeviceGetFabricVertexExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeContextCreate;
    t->pfnDestroy = zp_zeContextDestroy;
    t->pfnGetStatus = zp_zeContextGetStatus;
    t->pfnSystemBarrier = zp_zeContextSystemBarrier;
    t->pfnMakeMemoryResident = zp_zeContextMakeMemoryResident;
    t->pfnEvictMemory = zp_zeContextEvictMemory;
    t->pfnMakeImageResident = ZP_UNSUPPORTED(ze_pfnContextMakeImageResident_t);
    t->pfnEvictImage = ZP_UNSUPPORTED(ze_pfnContextEvictImage_t);
    if (ZP_HAS(1)) t->pfnCreateEx = zp_zeContextCreateEx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeCommandQueueCreate;
    t->pfnDestroy = zp_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = zp_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = zp_zeCommandQueueSynchronize;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeCommandListCreate;
    t->pfnCreateImmediate = zp_zeCommandListCreateImmediate;
    t->pfnDestroy = zp_zeCommandListDestroy;
    t->pfnClose = zp_zeCommandListClose;
    t->pfnReset = zp_zeCommandListReset;
    t->pfnAppendWriteGlobalTimestamp = zp_zeCommandListAppendWriteGlobalTimestamp;
    t->pfnAppendBarrier = zp_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = zp_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = zp_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = zp_zeCommandListAppendMemoryFill;
    t->pfnAppendMemoryCopyRegion = zp_zeCommandListAppendMemoryCopyRegion;
    t->pfnAppendMemoryCopyFromContext = zp_zeCommandListAppendMemoryCopyFromContext;
    t->pfnAppendImageCopy = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopy_t);
    t->pfnAppendImageCopyRegion = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyRegion_t);
    t->pfnAppendImageCopyToMemory = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyToMemory_t);
    t->pfnAppendImageCopyFromMemory = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyFromMemory_t);
    t->pfnAppendMemoryPrefetch = zp_zeCommandListAppendMemoryPrefetch;
    t->pfnAppendMemAdvise = zp_zeCommandListAppendMemAdvise;
    t->pfnAppendSignalEvent = zp_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = zp_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = zp_zeCommandListAppendEventReset;
    t->pfnAppendQueryKernelTimestamps = zp_zeCommandListAppendQueryKernelTimestamps;
    t->pfnAppendLaunchKernel = zp_zeCommandListAppendLaunchKernel;
    t->pfnAppendLaunchCooperativeKernel = ZP_UNSUPPORTED(ze_pfnCommandListAppendLaunchCooperativeKernel_t);
    t->pfnAppendLaunchKernelIndirect = zp_zeCommandListAppendLaunchKernelIndirect;
    t->pfnAppendLaunchMultipleKernelsIndirect = zp_zeCommandListAppendLaunchMultipleKernelsIndirect;
    if (ZP_HAS(3)) t->pfnAppendImageCopyToMemoryExt = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyToMemoryExt_t);
    if (ZP_HAS(3)) t->pfnAppendImageCopyFromMemoryExt = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyFromMemoryExt_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetImageProcAddrTable(ze_api_version_t version, ze_image_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetProperties = ZP_UNSUPPORTED(ze_pfnImageGetProperties_t);
    t->pfnCreate = ZP_UNSUPPORTED(ze_pfnImageCreate_t);
    t->pfnDestroy = ZP_UNSUPPORTED(ze_pfnImageDestroy_t);
    if (ZP_HAS(3)) t->pfnGetAllocPropertiesExt = ZP_UNSUPPORTED(ze_pfnImageGetAllocPropertiesExt_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetImageExpProcAddrTable(ze_api_version_t version, ze_image_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 2);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetMemoryPropertiesExp = ZP_UNSUPPORTED(ze_pfnImageGetMemoryPropertiesExp_t);
    t->pfnViewCreateExp = ZP_UNSUPPORTED(ze_pfnImageViewCreateExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeFenceCreate;
    t->pfnDestroy = zp_zeFenceDestroy;
    t->pfnHostSynchronize = zp_zeFenceHostSynchronize;
    t->pfnQueryStatus = zp_zeFenceQueryStatus;
    t->pfnReset = zp_zeFenceReset;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeEventPoolCreate;
    t->pfnDestroy = zp_zeEventPoolDestroy;
    t->pfnGetIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolGetIpcHandle_t);
    t->pfnOpenIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolOpenIpcHandle_t);
    t->pfnCloseIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolCloseIpcHandle_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeEventCreate;
    t->pfnDestroy = zp_zeEventDestroy;
    t->pfnHostSignal = zp_zeEventHostSignal;
    t->pfnHostSynchronize = zp_zeEventHostSynchronize;
    t->pfnQueryStatus = zp_zeEventQueryStatus;
    t->pfnHostReset = zp_zeEventHostReset;
    t->pfnQueryKernelTimestamp = zp_zeEventQueryKernelTimestamp;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 2);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnQueryTimestampsExp = ZP_UNSUPPORTED(ze_pfnEventQueryTimestampsExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeModuleCreate;
    t->pfnDestroy = zp_zeModuleDestroy;
    t->pfnDynamicLink = ZP_UNSUPPORTED(ze_pfnModuleDynamicLink_t);
    t->pfnGetNativeBinary = zp_zeModuleGetNativeBinary;
    t->pfnGetGlobalPointer = zp_zeModuleGetGlobalPointer;
    t->pfnGetKernelNames = zp_zeModuleGetKernelNames;
    t->pfnGetProperties = zp_zeModuleGetProperties;
    t->pfnGetFunctionPointer = zp_zeModuleGetFunctionPointer;
    if (ZP_HAS(3)) t->pfnInspectLinkageExt = ZP_UNSUPPORTED(ze_pfnModuleInspectLinkageExt_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnDestroy = zp_zeModuleBuildLogDestroy;
    t->pfnGetString = zp_zeModuleBuildLogGetString;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeKernelCreate;
    t->pfnDestroy = zp_zeKernelDestroy;
    t->pfnSetCacheConfig = zp_zeKernelSetCacheConfig;
    t->pfnSetGroupSize = zp_zeKernelSetGroupSize;
    t->pfnSuggestGroupSize = zp_zeKernelSuggestGroupSize;
    t->pfnSuggestMaxCooperativeGroupCount = zp_zeKernelSuggestMaxCooperativeGroupCount;
    t->pfnSetArgumentValue = zp_zeKernelSetArgumentValue;
    t->pfnSetIndirectAccess = zp_zeKernelSetIndirectAccess;
    t->pfnGetIndirectAccess = zp_zeKernelGetIndirectAccess;
    t->pfnGetSourceAttributes = zp_zeKernelGetSourceAttributes;
    t->pfnGetProperties = zp_zeKernelGetProperties;
    t->pfnGetName = zp_zeKernelGetName;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 1);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnSetGlobalOffsetExp = zp_zeKernelSetGlobalOffsetExp;
    if (ZP_HAS(2)) t->pfnSchedulingHintExp = ZP_UNSUPPORTED(ze_pfnKernelSchedulingHintExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetSamplerProcAddrTable(ze_api_version_t version, ze_sampler_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = ZP_UNSUPPORTED(ze_pfnSamplerCreate_t);
    t->pfnDestroy = ZP_UNSUPPORTED(ze_pfnSamplerDestroy_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetPhysicalMemProcAddrTable(ze_api_version_t version, ze_physical_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zePhysicalMemCreate;
    t->pfnDestroy = zp_zePhysicalMemDestroy;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnAllocShared = zp_zeMemAllocShared;
    t->pfnAllocDevice = zp_zeMemAllocDevice;
    t->pfnAllocHost = zp_zeMemAllocHost;
    t->pfnFree = zp_zeMemFree;
    t->pfnGetAllocProperties = zp_zeMemGetAllocProperties;
    t->pfnGetAddressRange = zp_zeMemGetAddressRange;
    t->pfnGetIpcHandle = ZP_UNSUPPORTED(ze_pfnMemGetIpcHandle_t);
    t->pfnOpenIpcHandle = ZP_UNSUPPORTED(ze_pfnMemOpenIpcHandle_t);
    t->pfnCloseIpcHandle = ZP_UNSUPPORTED(ze_pfnMemCloseIpcHandle_t);
    if (ZP_HAS(3)) t->pfnFreeExt = zp_zeMemFreeExt;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetVirtualMemProcAddrTable(ze_api_version_t version, ze_virtual_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnReserve = zp_zeVirtualMemReserve;
    t->pfnFree = zp_zeVirtualMemFree;
    t->pfnQueryPageSize = zp_zeVirtualMemQueryPageSize;
    t->pfnMap = zp_zeVirtualMemMap;
    t->pfnUnmap = zp_zeVirtualMemUnmap;
    t->pfnSetAccessAttribute = zp_zeVirtualMemSetAccessAttribute;
    t->pfnGetAccessAttribute = zp_zeVirtualMemGetAccessAttribute;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFabricVertexExpProcAddrTable(ze_api_version_t version, ze_fabric_vertex_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetExp_t);
    t->pfnGetSubVerticesExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetSubVerticesExp_t);
    t->pfnGetPropertiesExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetPropertiesExp_t);
    t->pfnGetDeviceExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetDeviceExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFabricEdgeExpProcAddrTable(ze_api_version_t version, ze_fabric_edge_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetExp_t);
    t->pfnGetVerticesExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetVerticesExp_t);
    t->pfnGetPropertiesExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetPropertiesExp_t);
    return ZE_RESULT_SUCCESS;
}

/* Tools and sysman: nothing is implemented; the loader requires the getters (except the
 * experimental one) and leaves the entries NULL. */
ze_result_t zp_zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetCommandListProcAddrTable(ze_api_version_t version, zet_command_list_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricGroupProcAddrTable(ze_api_version_t version, zet_metric_group_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricGroupExpProcAddrTable(ze_api_version_t version, zet_metric_group_exp_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricStreamerProcAddrTable(ze_api_version_t version, zet_metric_streamer_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version, zet_metric_query_pool_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricQueryProcAddrTable(ze_api_version_t version, zet_metric_query_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetTracerExpProcAddrTable(ze_api_version_t version, zet_tracer_exp_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetDebugProcAddrTable(ze_api_version_t version, zet_debug_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDriverProcAddrTable(ze_api_version_t version, zes_driver_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetSchedulerProcAddrTable(ze_api_version_t version, zes_scheduler_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPerformanceFactorProcAddrTable(ze_api_version_t version, zes_performance_factor_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPowerProcAddrTable(ze_api_version_t version, zes_power_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFrequencyProcAddrTable(ze_api_version_t version, zes_frequency_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetEngineProcAddrTable(ze_api_version_t version, zes_engine_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetStandbyProcAddrTable(ze_api_version_t version, zes_standby_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFirmwareProcAddrTable(ze_api_version_t version, zes_firmware_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetMemoryProcAddrTable(ze_api_version_t version, zes_memory_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFabricPortProcAddrTable(ze_api_version_t version, zes_fabric_port_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetTemperatureProcAddrTable(ze_api_version_t version, zes_temperature_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPsuProcAddrTable(ze_api_version_t version, zes_psu_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFanProcAddrTable(ze_api_version_t version, zes_fan_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetLedProcAddrTable(ze_api_version_t version, zes_led_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetRasProcAddrTable(ze_api_version_t version, zes_ras_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDiagnosticsProcAddrTable(ze_api_version_t version, zes_diagnostics_dditable_t *t) {
    return check_version(version, t);
}

