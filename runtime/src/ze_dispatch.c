/*
 * ze_dispatch.c: the Level Zero entry points a context calls through. A context on a Level Zero device calls the
 * loader's (the table below holds the loader's exported functions); a context on the host device calls libkrt's
 * in-process host driver (driver/host/), which has no loader entry, so that the host device is there whatever
 * ZE_ENABLE_ALT_DRIVERS lists. One indirect call replaces the direct one on every path, the warm launch included.
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_driver_status.h"
#include "../../driver/include/ze_krt_host.h"

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
/* The host driver's handles, as its own table gave them (set once, by host_start). A handle from the loader is
 * never one of these, so a handle's table is known without asking the host driver. */
#define HOST_DEVICES_MAX 4
static ze_driver_handle_t host_driver;
static ze_device_handle_t host_devices[HOST_DEVICES_MAX];
static uint32_t host_num_devices;

static ze_krt_driver_status_t host_status; /* why the host driver has no device, when it has none */

static void host_start(void)
{
    if (krt__host_ddi(&host_table, &host_status) != ZE_RESULT_SUCCESS || !host_table.Global.pfnInit ||
        host_table.Global.pfnInit(0) != ZE_RESULT_SUCCESS)
        return;
    ze_driver_handle_t drv = NULL;
    uint32_t n = 1;
    if (host_table.Driver.pfnGet(&n, &drv) != ZE_RESULT_SUCCESS || n != 1)
        return;
    n = HOST_DEVICES_MAX;
    if (host_table.Device.pfnGet(drv, &n, host_devices) != ZE_RESULT_SUCCESS)
        return;
    host_num_devices = n;
    __atomic_store_n(&host_driver, drv, __ATOMIC_RELEASE);
    host_ok = 1;
}

const ze_dditable_t *krt__ze_host(void)
{
    pthread_once(&host_once, host_start);
    return host_ok ? &host_table : NULL;
}

const char *krt__ze_host_no_device_reason(void)
{
    pthread_once(&host_once, host_start);
    return host_ok ? "" : host_status.reason;
}

/* Whether a handle is the host driver's. A thread can hold one only after host_start has run (its handles come
 * from krt__ze_host's table), and the acquire load pairs with host_start's release store; a loader handle
 * compares unequal whether or not the host driver has started. */
int krt__host_is_driver_handle(ze_driver_handle_t driver)
{
    ze_driver_handle_t h = __atomic_load_n(&host_driver, __ATOMIC_ACQUIRE);
    return h != NULL && driver == h;
}

static int host_is_device(ze_device_handle_t device)
{
    if (!__atomic_load_n(&host_driver, __ATOMIC_ACQUIRE))
        return 0;
    for (uint32_t i = 0; i < host_num_devices; i++)
        if (device == host_devices[i])
            return 1;
    return 0;
}

const ze_dditable_t *krt__ddi_of_driver(ze_driver_handle_t driver)
{
    return krt__host_is_driver_handle(driver) ? &host_table : &loader_table;
}

const ze_dditable_t *krt__ddi_of_device(ze_device_handle_t device)
{
    return host_is_device(device) ? &host_table : &loader_table;
}
