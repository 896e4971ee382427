/*
 * ze_dispatch.c: the Level Zero entry points a context calls through. A context on a Level Zero device calls the
 * loader's (the table below holds the loader's exported functions); a context on the host device calls libkrt's
 * in-process host driver (driver/host/), which has no loader entry, so that the host device is there whatever
 * ZE_ENABLE_ALT_DRIVERS lists. One indirect call replaces the direct one on every path, the warm launch included.
 */
#include "krt_internal.h"
#include "../../driver/host/host.h"

static const ze_dditable_t loader_table = {
    .Global = {
        .pfnInit = zeInit,
    },
    .Driver = {
        .pfnGet = zeDriverGet,
        .pfnGetApiVersion = zeDriverGetApiVersion,
        .pfnGetProperties = zeDriverGetProperties,
        .pfnGetIpcProperties = zeDriverGetIpcProperties,
        .pfnGetExtensionProperties = zeDriverGetExtensionProperties,
        .pfnGetExtensionFunctionAddress = zeDriverGetExtensionFunctionAddress,
    },
    .Device = {
        .pfnGet = zeDeviceGet,
        .pfnGetSubDevices = zeDeviceGetSubDevices,
        .pfnGetProperties = zeDeviceGetProperties,
        .pfnGetComputeProperties = zeDeviceGetComputeProperties,
        .pfnGetModuleProperties = zeDeviceGetModuleProperties,
        .pfnGetCommandQueueGroupProperties = zeDeviceGetCommandQueueGroupProperties,
        .pfnGetMemoryProperties = zeDeviceGetMemoryProperties,
        .pfnGetMemoryAccessProperties = zeDeviceGetMemoryAccessProperties,
        .pfnGetCacheProperties = zeDeviceGetCacheProperties,
        .pfnGetImageProperties = zeDeviceGetImageProperties,
        .pfnGetExternalMemoryProperties = zeDeviceGetExternalMemoryProperties,
        .pfnGetP2PProperties = zeDeviceGetP2PProperties,
        .pfnCanAccessPeer = zeDeviceCanAccessPeer,
        .pfnGetStatus = zeDeviceGetStatus,
        .pfnGetGlobalTimestamps = zeDeviceGetGlobalTimestamps,
        .pfnReserveCacheExt = zeDeviceReserveCacheExt,
        .pfnSetCacheAdviceExt = zeDeviceSetCacheAdviceExt,
        .pfnPciGetPropertiesExt = zeDevicePciGetPropertiesExt,
    },
    .Context = {
        .pfnCreate = zeContextCreate,
        .pfnDestroy = zeContextDestroy,
        .pfnGetStatus = zeContextGetStatus,
        .pfnSystemBarrier = zeContextSystemBarrier,
        .pfnMakeMemoryResident = zeContextMakeMemoryResident,
        .pfnEvictMemory = zeContextEvictMemory,
        .pfnMakeImageResident = zeContextMakeImageResident,
        .pfnEvictImage = zeContextEvictImage,
        .pfnCreateEx = zeContextCreateEx,
    },
    .CommandQueue = {
        .pfnCreate = zeCommandQueueCreate,
        .pfnDestroy = zeCommandQueueDestroy,
        .pfnExecuteCommandLists = zeCommandQueueExecuteCommandLists,
        .pfnSynchronize = zeCommandQueueSynchronize,
    },
    .CommandList = {
        .pfnCreate = zeCommandListCreate,
        .pfnCreateImmediate = zeCommandListCreateImmediate,
        .pfnDestroy = zeCommandListDestroy,
        .pfnClose = zeCommandListClose,
        .pfnReset = zeCommandListReset,
        .pfnAppendWriteGlobalTimestamp = zeCommandListAppendWriteGlobalTimestamp,
        .pfnAppendBarrier = zeCommandListAppendBarrier,
        .pfnAppendMemoryRangesBarrier = zeCommandListAppendMemoryRangesBarrier,
        .pfnAppendMemoryCopy = zeCommandListAppendMemoryCopy,
        .pfnAppendMemoryFill = zeCommandListAppendMemoryFill,
        .pfnAppendMemoryCopyRegion = zeCommandListAppendMemoryCopyRegion,
        .pfnAppendMemoryCopyFromContext = zeCommandListAppendMemoryCopyFromContext,
        .pfnAppendImageCopy = zeCommandListAppendImageCopy,
        .pfnAppendImageCopyRegion = zeCommandListAppendImageCopyRegion,
        .pfnAppendImageCopyToMemory = zeCommandListAppendImageCopyToMemory,
        .pfnAppendImageCopyFromMemory = zeCommandListAppendImageCopyFromMemory,
        .pfnAppendMemoryPrefetch = zeCommandListAppendMemoryPrefetch,
        .pfnAppendMemAdvise = zeCommandListAppendMemAdvise,
        .pfnAppendSignalEvent = zeCommandListAppendSignalEvent,
        .pfnAppendWaitOnEvents = zeCommandListAppendWaitOnEvents,
        .pfnAppendEventReset = zeCommandListAppendEventReset,
        .pfnAppendQueryKernelTimestamps = zeCommandListAppendQueryKernelTimestamps,
        .pfnAppendLaunchKernel = zeCommandListAppendLaunchKernel,
        .pfnAppendLaunchCooperativeKernel = zeCommandListAppendLaunchCooperativeKernel,
        .pfnAppendLaunchKernelIndirect = zeCommandListAppendLaunchKernelIndirect,
        .pfnAppendLaunchMultipleKernelsIndirect = zeCommandListAppendLaunchMultipleKernelsIndirect,
        .pfnAppendImageCopyToMemoryExt = zeCommandListAppendImageCopyToMemoryExt,
        .pfnAppendImageCopyFromMemoryExt = zeCommandListAppendImageCopyFromMemoryExt,
    },
    .Fence = {
        .pfnCreate = zeFenceCreate,
        .pfnDestroy = zeFenceDestroy,
        .pfnHostSynchronize = zeFenceHostSynchronize,
        .pfnQueryStatus = zeFenceQueryStatus,
        .pfnReset = zeFenceReset,
    },
    .EventPool = {
        .pfnCreate = zeEventPoolCreate,
        .pfnDestroy = zeEventPoolDestroy,
        .pfnGetIpcHandle = zeEventPoolGetIpcHandle,
        .pfnOpenIpcHandle = zeEventPoolOpenIpcHandle,
        .pfnCloseIpcHandle = zeEventPoolCloseIpcHandle,
    },
    .Event = {
        .pfnCreate = zeEventCreate,
        .pfnDestroy = zeEventDestroy,
        .pfnHostSignal = zeEventHostSignal,
        .pfnHostSynchronize = zeEventHostSynchronize,
        .pfnQueryStatus = zeEventQueryStatus,
        .pfnHostReset = zeEventHostReset,
        .pfnQueryKernelTimestamp = zeEventQueryKernelTimestamp,
    },
    .Module = {
        .pfnCreate = zeModuleCreate,
        .pfnDestroy = zeModuleDestroy,
        .pfnDynamicLink = zeModuleDynamicLink,
        .pfnGetNativeBinary = zeModuleGetNativeBinary,
        .pfnGetGlobalPointer = zeModuleGetGlobalPointer,
        .pfnGetKernelNames = zeModuleGetKernelNames,
        .pfnGetProperties = zeModuleGetProperties,
        .pfnGetFunctionPointer = zeModuleGetFunctionPointer,
        .pfnInspectLinkageExt = zeModuleInspectLinkageExt,
    },
    .ModuleBuildLog = {
        .pfnDestroy = zeModuleBuildLogDestroy,
        .pfnGetString = zeModuleBuildLogGetString,
    },
    .Kernel = {
        .pfnCreate = zeKernelCreate,
        .pfnDestroy = zeKernelDestroy,
        .pfnSetCacheConfig = zeKernelSetCacheConfig,
        .pfnSetGroupSize = zeKernelSetGroupSize,
        .pfnSuggestGroupSize = zeKernelSuggestGroupSize,
        .pfnSuggestMaxCooperativeGroupCount = zeKernelSuggestMaxCooperativeGroupCount,
        .pfnSetArgumentValue = zeKernelSetArgumentValue,
        .pfnSetIndirectAccess = zeKernelSetIndirectAccess,
        .pfnGetIndirectAccess = zeKernelGetIndirectAccess,
        .pfnGetSourceAttributes = zeKernelGetSourceAttributes,
        .pfnGetProperties = zeKernelGetProperties,
        .pfnGetName = zeKernelGetName,
    },
    .Mem = {
        .pfnAllocShared = zeMemAllocShared,
        .pfnAllocDevice = zeMemAllocDevice,
        .pfnAllocHost = zeMemAllocHost,
        .pfnFree = zeMemFree,
        .pfnGetAllocProperties = zeMemGetAllocProperties,
        .pfnGetAddressRange = zeMemGetAddressRange,
        .pfnGetIpcHandle = zeMemGetIpcHandle,
        .pfnOpenIpcHandle = zeMemOpenIpcHandle,
        .pfnCloseIpcHandle = zeMemCloseIpcHandle,
        .pfnFreeExt = zeMemFreeExt,
    },
};

const ze_dditable_t *krt__ze_loader(void)
{
    return &loader_table;
}

static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static ze_dditable_t host_table;
static int host_ok;

static void host_start(void)
{
    if (krt__host_ddi(&host_table) == ZE_RESULT_SUCCESS && host_table.Global.pfnInit &&
        host_table.Global.pfnInit(0) == ZE_RESULT_SUCCESS)
        host_ok = 1;
}

const ze_dditable_t *krt__ze_host(void)
{
    pthread_once(&host_once, host_start);
    return host_ok ? &host_table : NULL;
}

const ze_dditable_t *krt__ddi_of_driver(ze_driver_handle_t driver)
{
    return krt__host_is_driver(driver) ? &host_table : &loader_table;
}

const ze_dditable_t *krt__ddi_of_device(ze_device_handle_t device)
{
    return krt__host_is_device(device) ? &host_table : &loader_table;
}

int krt__host_is_driver_handle(ze_driver_handle_t driver)
{
    return krt__host_is_driver(driver);
}
